// Where the tuner's measurements come from. Two implementations exist: the Measurer
// (measurer.h), which compiles and times candidates on this machine, and the ReplayMeasurer
// (search/replay/replay_measurer.h), which answers from a recorded set of earlier measurements so
// that strategies and cost models can be compared exactly, fast, and without the machine's noise.
// The tuner only sees this interface, so a strategy cannot tell the two apart.
#pragma once
#include <string>
#include <vector>

#include "search/measure/measure_result.h"
#include "search/spaces/candidate.h"

namespace tessel::search {

class MeasureSource {
 public:
  virtual ~MeasureSource() = default;
  // One result per candidate (of the task's space), in order; failures are results, never exceptions.
  virtual std::vector<MeasureResult> measure(const std::vector<Candidate>& candidates) const = 0;
  // "hardware" or "replay:<set>", as an experiment config names it.
  virtual std::string name() const = 0;
};

}  // namespace tessel::search
