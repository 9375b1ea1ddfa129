// Replay of recorded measurements (search/replay/replay_measurer.h).
#include "search/replay/replay_measurer.h"

#include "support/error.h"

namespace tessel::search {

ReplayMeasurer::ReplayMeasurer(const Task& task, const RecordedWorkload& recorded, std::string set_name)
    : recorded_(recorded), set_name_(std::move(set_name)) {
  if (RecordedWorkload::describe_space(task.knob_space("replay")) != recorded.knobs)
    user_error("recorded set '", set_name_, "' recorded ", recorded.workload, " in another version of the space '",
               recorded.space, "' (its knobs differ from this Tessel's); record the set again");
  TESSEL_CHECK(recorded.results.size() == task.space().size(), "a loaded set covers its space");
}

std::vector<MeasureResult> ReplayMeasurer::measure(const std::vector<Candidate>& candidates) const {
  std::vector<MeasureResult> results;
  results.reserve(candidates.size());
  for (const Candidate& c : candidates) {
    if (!c.is_index() || c.index() >= recorded_.results.size())
      user_error("replay: ", c.str(), " is not a configuration of the space recorded for ", recorded_.workload);
    results.push_back(recorded_.results[c.index()]);
  }
  return results;
}

}  // namespace tessel::search
