// The replay measure source (search/measure/measure_source.h): answers each configuration with
// the result recorded for it in a recorded set (recorded_set.h), instantly and identically every
// time, so a strategy's run in replay is a pure function of its seed. Because a set covers its
// whole space, no configuration is ever unanswered: replay is exact, not an approximation.
//
//   RecordedSet set = RecordedSet::load(resolve_recorded_set("small_cpu"));
//   ReplayMeasurer replay(task, set.workload(task.workload().name, task.space_name()), "small_cpu");
//   tuner.run(baseline, &replay);
#pragma once
#include "search/measure/measure_source.h"
#include "search/replay/recorded_set.h"
#include "search/task/task.h"

namespace tessel::search {

class ReplayMeasurer : public MeasureSource {
 public:
  // Throws UserError if the task's space is not the one the workload was recorded in. `recorded`
  // must outlive the measurer.
  ReplayMeasurer(const Task& task, const RecordedWorkload& recorded, std::string set_name);

  // Throws UserError for a candidate that is not an index of the recorded space.
  std::vector<MeasureResult> measure(const std::vector<Candidate>& candidates) const override;
  std::string name() const override { return "replay:" + set_name_; }

 private:
  const RecordedWorkload& recorded_;
  std::string set_name_;
};

}  // namespace tessel::search
