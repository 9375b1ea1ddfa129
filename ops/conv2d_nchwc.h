// conv2d in the blocked layout of TVM's x86 conv2d_NCHWc: data [N, C/ib, H, W, ib], kernel
// [O/ob, (C/groups)/ib, KH, KW, ib, ob], output [N, O/ob, OH, OW, ob], with its default CPU
// schedule: a register tile of reg_n output columns × the ob output channels (two 16-lane vectors
// for ob = 32), accumulated over input channels and the kernel window with the kernel width
// unrolled, threads over (output-channel block, output row). Padding is a stage at the root.
#pragma once
#include "ir/schedule.h"
#include "ops/conv2d_params.h"

namespace tessel::ops {

// Tagged "conv2d_nchwc". With groups > 1, the channels per group must be multiples of the blocks.
Tensor conv2d_nchwc(const Tensor& data, const Tensor& kernel, const Conv2dParams& params,
                    const std::string& name = "conv2d_nchwc");

// Block sizes a caller should convert to: ob = 32 (two AVX-512 vectors) when it divides the
// output channels per group, else 16 (one vector) when that does, else a divisor up to 16;
// ib = a divisor of the input channels per group up to 16. Two vectors per column halve the
// input broadcasts per FMA and give narrow outputs (OW = 7) enough accumulators.
struct Conv2dBlocks {
  int64_t ib, ob;
};
Conv2dBlocks choose_conv2d_blocks(int64_t in_channels, int64_t out_channels, int64_t groups);

// The default schedule's output columns per register tile: a divisor of OW such that the tile
// (columns × the output block) fits 14 AVX-512 accumulators.
int64_t conv2d_default_columns(const Tensor& output);

// reg_n = 0 picks conv2d_default_columns. pad_per_row pads the input rows each output row reads
// just before computing it, instead of the whole input first.
Schedule schedule_conv2d_nchwc_cpu(const Tensor& output, int64_t reg_n = 0, bool pad_per_row = false);

}  // namespace tessel::ops
