// The schedule of a fused block (passes/graph/fuse_blocks.cpp): convolutions chained through
// tensors that do not fit the L2, MobileNet-V2's inverted residual (1x1 expansion, depthwise 3x3,
// 1x1 projection) above all, computed one row tile of the block's output at a time. Each tile
// first computes the rows of every producer stage it reads (the expansion's output rows under the
// depthwise window, then the depthwise output rows), then its own, so the chained tensors live in
// L2-sized tiles and never travel to memory and back. The price is the window's halo: the producer
// rows two neighbouring tiles both read are computed twice.
//
// Every stage keeps the register tile of its operator's default schedule (ops/window_schedule.h);
// the threads share the row tiles.
//
//   // E = clip(conv1x1(x) + b1), D = clip(depthwise(E) + b2), out = conv1x1(D) + b3
//   Schedule s = schedule_fused_block(out, {E, D}, target);
#pragma once
#include <vector>

#include "ir/schedule.h"
#include "target/target.h"

namespace tessel::ops {

// Output rows per tile for `output` whose producer stages `tile_stages` (producers first, each a
// conv2d_nchwc or depthwise_conv2d_nchwc with its element-wise tail) are computed per tile: the
// most rows (a divisor of the output's rows, the tiles an equal number per thread) whose tiles of the
// producer stages fill at most half of one core's L2; 1 when none do.
int64_t block_tile_rows(const Tensor& output, const std::vector<Tensor>& tile_stages, const CpuDescription& cpu);

// The schedule of `output` (a conv2d_nchwc with its element-wise tail) with `tile_stages` computed
// per row tile of block_tile_rows rows, for `target`. The stages between them (element-wise
// tails, layout transforms, pads) are inlined. Throws UserError if a stage is not a window
// operator's output.
Schedule schedule_fused_block(const Tensor& output, const std::vector<Tensor>& tile_stages, const Target& target);

}  // namespace tessel::ops
