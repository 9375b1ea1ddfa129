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

// The nearest window operator behind `stage`, with what it reads.
WindowOperands window_of(const Tensor& stage) { return window_operands(stage, window_tag(stage)); }

// Rows of its input the window operator of `consumer` reads for `rows` output rows.
int64_t input_rows(const Tensor& consumer, int64_t rows) {
  WindowOperands w = window_of(consumer);
  int64_t kernel_rows = w.kernel.shape()[2], out_rows = w.stage.shape()[2];
  int64_t stride = std::max<int64_t>(1, w.data.shape()[2] / out_rows);  // padded input: (out - 1) * s + k rows
  return (rows - 1) * stride + kernel_rows;
}

// Bytes of one row of a 5-D [N, C/b, H, W, b] stage (all channels).
int64_t row_bytes(const Tensor& stage) {
  const auto& s = stage.shape();
  return s[0] * s[1] * s[3] * s[4] * stage.dtype().bytes();
}

// Bytes of the producer tiles a tile of `rows` output rows computes.
int64_t tile_bytes(const Tensor& output, const std::vector<Tensor>& tile_stages, int64_t rows) {
  int64_t bytes = 0;
  const Tensor* consumer = &output;
  for (auto it = tile_stages.rbegin(); it != tile_stages.rend(); ++it) {
    rows = std::min(input_rows(*consumer, rows), it->shape()[2]);
    bytes += rows * row_bytes(*it);
    consumer = &*it;
  }
  return bytes;
}

WindowConfig default_config(const Tensor& stage, const Target& target) {
  return window_tag(stage) == kDepthwise ? depthwise_fallback_config(stage, target)
                                         : conv2d_fallback_config(stage, target);
}

}  // namespace

int64_t block_tile_rows(const Tensor& output, const std::vector<Tensor>& tile_stages, const CpuDescription& cpu) {
  int64_t out_rows = output.shape()[2];
  for (int64_t rows = out_rows; rows > 1; --rows) {
    if (out_rows % rows != 0 || (out_rows / rows) % cpu.threads != 0) continue;  // equal shares
    if (2 * tile_bytes(output, tile_stages, rows) <= cpu.l2_bytes) return rows;
  }
  return 1;
}

Schedule schedule_fused_block(const Tensor& output, const std::vector<Tensor>& tile_stages, const Target& target) {
  for (const Tensor& t : tile_stages)
    if (t.ndim() != 5) user_error("fused block: stage '", t.name(), "' is not in a blocked layout (NCHWc)");
  Schedule s = create_schedule({output});
  Tensor acc = output_accumulator(s, output);
  int64_t rows = block_tile_rows(output, tile_stages, target.cpu());
  IterVar tile = schedule_window_tiled(s, output, acc, default_config(output, target), rows);
  for (const Tensor& stage : tile_stages) {
    Tensor stage_acc = output_accumulator(s, stage);
    schedule_window_at(s, stage, stage_acc, default_config(stage, target), s[output], tile);
  }
  return s;
}

}  // namespace tessel::ops
