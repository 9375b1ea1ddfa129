// The schedule of a fused block (passes/graph/fuse_blocks.cpp): convolutions chained through
// tensors that do not fit the L2, MobileNet-V2's inverted residual (1x1 expansion, depthwise 3x3,
// 1x1 projection) above all, computed one row of the block's output at a time. Each thread takes
// an equal share of the output rows and runs down it: for every output row it first computes the
// producer rows that row needs which no earlier row computed (the expansion rows entering the
// depthwise window, then the depthwise row), then the row itself (Stage::store_at, a sliding
// window). Each producer lives in a ring of a few rows (4 expansion rows under a 3x3 window), so
// the chained tensors stay in cache and never travel to memory and back, and no producer row is
// computed twice but the halo at the start of each thread's share.
//
// A block whose projection is summed in shares of its input channels (ops/conv2d_shares.h; set
// by fuse_blocks where a thread's share of rows would be few) splits by channels instead: each
// thread computes its share of the expansion's and the depthwise's channels, all rows, and the
// partial sums of the projection over them; a second parallel loop adds the partial sums.
//
// Every stage keeps the register tile of its operator's default schedule (ops/window_schedule.h).
//
//   // E = clip(conv1x1(x) + b1), D = clip(depthwise(E) + b2), out = conv1x1(D) + b3
//   Schedule s = schedule_fused_block(out, {E, D}, target);
#pragma once
#include <vector>

#include "ir/schedule.h"
#include "ops/window_schedule.h"
#include "target/target.h"

namespace tessel::ops {

// Output rows per thread's share of `output`: its rows divided by the target's threads, rounded up.
int64_t block_share_rows(const Tensor& output, const CpuDescription& cpu);

// The schedule of `output` (a conv2d_nchwc with its element-wise tail) with `tile_stages`
// (producers first) computed per output row and stored per share of block_share_rows rows, for
// `target`. The stages between them (element-wise tails, layout transforms, pads) are inlined.
// Throws UserError if a stage is not a window operator's output.
Schedule schedule_fused_block(const Tensor& output, const std::vector<Tensor>& tile_stages, const Target& target);

// The same with a register tile of each stage's own: `configs` holds one per tile stage, then the
// output's (the tuning template's, search/spaces/block_template.h). Throws UserError as above, or if
// the counts differ.
Schedule schedule_fused_block(const Tensor& output, const std::vector<Tensor>& tile_stages,
                              const std::vector<WindowConfig>& configs, const Target& target);

// The configurations schedule_fused_block runs by default: each stage's operator's fallback.
std::vector<WindowConfig> fused_block_configs(const Tensor& output, const std::vector<Tensor>& tile_stages,
                                              const Target& target);

// The convolution of each stage (conv2d_nchwc or depthwise_conv2d_nchwc, the one nearest it):
// those of `tile_stages`, then the output's. Throws UserError as schedule_fused_block does.
std::vector<Tensor> fused_block_windows(const Tensor& output, const std::vector<Tensor>& tile_stages);

}  // namespace tessel::ops
