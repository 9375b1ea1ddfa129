// The schedule of a fused block (ops/block_schedule.h).
#include "ops/block_schedule.h"

#include "ops/conv2d_nchwc.h"
#include "ops/conv2d_shares.h"
#include "ops/depthwise_conv2d.h"
#include "ops/op_schedule.h"
#include "ops/tiling.h"
#include "ops/window_schedule.h"
#include "support/error.h"

namespace tessel::ops {

namespace {

const char* kConv = "conv2d_nchwc";
const char* kDepthwise = "depthwise_conv2d_nchwc";

// The window operator nearest `stage` (its own convolution, not a producer's).
Tensor window_of(const Tensor& stage) {
  std::vector<Tensor> stages = topological_order({stage});
  for (auto it = stages.rbegin(); it != stages.rend(); ++it)
    if ((*it)->tag == kDepthwise || (*it)->tag == kConv) return *it;
  user_error("fused block: stage '", stage.name(), "' is not the output of a convolution; a fused block chains ",
             kConv, " and ", kDepthwise, " stages");
}

WindowConfig default_config(const Tensor& stage, const Target& target) {
  return window_of(stage)->tag == kDepthwise ? depthwise_fallback_config(stage, target)
                                             : conv2d_fallback_config(stage, target);
}

}  // namespace

int64_t block_share_rows(const Tensor& output, const CpuDescription& cpu) {
  int64_t rows = output.shape()[2];
  return (rows + cpu.threads - 1) / cpu.threads;
}

std::vector<WindowConfig> fused_block_configs(const Tensor& output, const std::vector<Tensor>& tile_stages,
                                              const Target& target) {
  std::vector<WindowConfig> configs;
  for (const Tensor& stage : tile_stages) configs.push_back(default_config(stage, target));
  configs.push_back(default_config(reads_channel_shares(output) ? channel_shares_partial(output) : output, target));
  return configs;
}

std::vector<Tensor> fused_block_windows(const Tensor& output, const std::vector<Tensor>& tile_stages) {
  std::vector<Tensor> windows;
  for (const Tensor& stage : tile_stages) windows.push_back(window_of(stage));
  windows.push_back(window_of(output));
  return windows;
}

Schedule schedule_fused_block(const Tensor& output, const std::vector<Tensor>& tile_stages, const Target& target) {
  return schedule_fused_block(output, tile_stages, fused_block_configs(output, tile_stages, target), target);
}

Schedule schedule_fused_block(const Tensor& output, const std::vector<Tensor>& tile_stages,
                              const std::vector<WindowConfig>& configs, const Target& target) {
  if (configs.size() != tile_stages.size() + 1)
    user_error("fused block: ", configs.size(), " configurations for ", tile_stages.size() + 1,
               " stages; give one per stage, the output's last");
  for (const Tensor& t : tile_stages)
    if (t.ndim() != 5) user_error("fused block: stage '", t.name(), "' is not in a blocked layout (NCHWc)");
  Schedule s = create_schedule({output});
  bool by_channels = reads_channel_shares(output);
  IterVar at, store;
  if (by_channels) {
    at = schedule_channel_shares(s, output, configs.back());
  } else {
    BlockLoops loops = schedule_window_tiled(s, output, output_accumulator(s, output), configs.back(),
                                             block_share_rows(output, target.cpu()));
    at = loops.rows;
    store = loops.tiles;
  }
  Stage parent = s[by_channels ? channel_shares_partial(output) : output];
  for (size_t i = 0; i < tile_stages.size(); ++i) {
    const Tensor& stage = tile_stages[i];
    Tensor stage_acc = output_accumulator(s, stage);
    schedule_window_at(s, stage, stage_acc, configs[i], parent, at);
    if (store.defined()) s[stage].store_at(parent, store);
    // A thread's share of a channel-split block reads its share of every kernel once, from memory.
    if (by_channels && window_of(stage)->tag == kConv)
      prefetch_conv2d_kernel(s[stage_acc], window_operands(stage, kConv).kernel, configs[i]);
  }
  return s;
}

}  // namespace tessel::ops
