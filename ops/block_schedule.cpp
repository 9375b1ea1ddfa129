// The schedule of a fused block (ops/block_schedule.h).
#include "ops/block_schedule.h"

#include "ops/conv2d_nchwc.h"
#include "ops/depthwise_conv2d.h"
#include "ops/op_schedule.h"
#include "ops/tiling.h"
#include "ops/window_schedule.h"
#include "support/error.h"

namespace tessel::ops {

namespace {

const char* kConv = "conv2d_nchwc";
const char* kDepthwise = "depthwise_conv2d_nchwc";

// The tag of the window operator nearest `stage` (its own convolution, not a producer's).
const char* window_tag(const Tensor& stage) {
  std::vector<Tensor> stages = topological_order({stage});
  for (auto it = stages.rbegin(); it != stages.rend(); ++it)
    for (const char* tag : {kDepthwise, kConv})
      if ((*it)->tag == tag) return tag;
  user_error("fused block: stage '", stage.name(), "' is not the output of a convolution; a fused block chains ",
             kConv, " and ", kDepthwise, " stages");
}

WindowConfig default_config(const Tensor& stage, const Target& target) {
  return window_tag(stage) == kDepthwise ? depthwise_fallback_config(stage, target)
                                         : conv2d_fallback_config(stage, target);
}

}  // namespace

int64_t block_share_rows(const Tensor& output, const CpuDescription& cpu) {
  int64_t rows = output.shape()[2];
  return (rows + cpu.threads - 1) / cpu.threads;
}

Schedule schedule_fused_block(const Tensor& output, const std::vector<Tensor>& tile_stages, const Target& target) {
  for (const Tensor& t : tile_stages)
    if (t.ndim() != 5) user_error("fused block: stage '", t.name(), "' is not in a blocked layout (NCHWc)");
  Schedule s = create_schedule({output});
  Tensor acc = output_accumulator(s, output);
  BlockLoops loops = schedule_window_tiled(s, output, acc, default_config(output, target),
                                           block_share_rows(output, target.cpu()));
  for (const Tensor& stage : tile_stages) {
    Tensor stage_acc = output_accumulator(s, stage);
    schedule_window_at(s, stage, stage_acc, default_config(stage, target), s[output], loops.rows);
    s[stage].store_at(s[output], loops.tiles);
  }
  return s;
}

}  // namespace tessel::ops
