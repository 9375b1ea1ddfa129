// Program helpers of the schedule-space interface (search/spaces/schedule_template.h).
#include "search/spaces/schedule_template.h"

namespace tessel::search {

std::vector<Tensor> Program::args() const {
  std::vector<Tensor> args = inputs;
  args.push_back(output);
  return args;
}

}  // namespace tessel::search
