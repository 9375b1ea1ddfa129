// Program helpers of the schedule-space interface (search/spaces/schedule_template.h).
#include "search/spaces/schedule_template.h"

#include <algorithm>

#include "runtime/ndarray.h"

namespace tessel::search {

std::vector<Tensor> Program::args() const {
  std::vector<Tensor> args = inputs;
  args.push_back(output);
  return args;
}

namespace {

std::string shapes_of(const std::vector<Tensor>& tensors) {
  std::string out;
  for (const Tensor& t : tensors) out += (out.empty() ? "" : " ") + shape_str(t.shape());
  return out;
}

}  // namespace

std::string AnchorTemplate::kernel_mismatch(const KernelStages& kernel) const {
  if (!kernel.tile_stages.empty()) return "a fused block takes a block's template";
  return anchor_mismatch(kernel.anchor.defined() ? kernel.anchor : kernel.output);
}

bool ScheduleTemplate::splits_as_default(const Candidate& candidate) const {
  Config config = space().get(candidate), fallback = default_config();
  for (const std::string& knob : thread_split_knobs())
    if (config.value(knob) != fallback.value(knob)) return false;
  return true;
}

std::string stage_mismatch(const Tensor& anchor, const Tensor& expected, const std::vector<std::string>& tags) {
  if (!anchor.defined()) return "the group has no anchor stage";
  if (std::find(tags.begin(), tags.end(), anchor->tag) == tags.end())
    return "its anchor is a " + anchor->tag + " stage, the template schedules " + expected->tag;
  if (anchor.shape() != expected.shape())
    return "its anchor's shape " + shape_str(anchor.shape()) + " is not the template's " + shape_str(expected.shape());
  if (anchor->reduce_axis.size() != expected->reduce_axis.size()) return "its anchor reduces over other axes";
  std::string ours = shapes_of(operand_tensors(anchor)), theirs = shapes_of(operand_tensors(expected));
  if (ours != theirs) return "its anchor reads " + ours + ", the template's operator " + theirs;
  return "";
}

}  // namespace tessel::search
