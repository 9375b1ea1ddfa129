// conv2d_nchwc_shares: a 1x1 conv2d_nchwc whose sum over the input channels is split into one
// partial sum per share of the input channel blocks, the shares added after. On several threads
// each thread then computes one share, reading only its share of the input and of the kernel: a
// fused block split by channels (ops/block_schedule.h) computes the input's share on the same
// core, so no input crosses between the cores, only the partial sums, which for MobileNet-V2's
// 7x7 projections are a sixth of the input (160 output channels against 960 input ones).
//
//   Tensor out = conv2d_nchwc_shares(data, kernel, 2);   // stages: partial sums, then their total
//   Schedule s = schedule_conv2d_nchwc_shares(out, target);
#pragma once
#include <string>

#include "ir/schedule.h"
#include "ops/window_schedule.h"
#include "target/target.h"

namespace tessel::ops {

// data [N, C/ib, H, W, ib], kernel [O/ob, C/ib, 1, 1, ib, ob] (a 1x1 conv2d_nchwc's, one group).
// The partial sums are a conv2d_nchwc stage of `shares` times the output's channel blocks, share
// t's output blocks reading share t of the input blocks; the output (tag "conv2d_nchwc_shares")
// adds them. Throws UserError if the operands are not such a convolution's or `shares` does not
// divide the input channel blocks.
Tensor conv2d_nchwc_shares(const Tensor& data, const Tensor& kernel, int64_t shares,
                           const std::string& name = "conv2d_nchwc");

// Whether `output` computes a conv2d_nchwc_shares (the stage itself or through element-wise
// stages after it).
bool reads_channel_shares(const Tensor& output);

// The partial sums stage of the conv2d_nchwc_shares `output` reads.
Tensor channel_shares_partial(const Tensor& output);

// Schedules `output` (reading a conv2d_nchwc_shares) in `s`: the partial sums at the root, their
// channel blocks in one share per thread, the parallel loop, with `config`'s register tiles
// (schedule_window_shares); the shares' total inlined into the output, whose channel blocks the
// threads split. Returns the partial sums' share loop, where a fused block computes its producers.
IterVar schedule_channel_shares(Schedule& s, const Tensor& output, const WindowConfig& config);

// The default schedule: schedule_channel_shares with conv2d_nchwc's fallback tile for the partial sums.
Schedule schedule_conv2d_nchwc_shares(const Tensor& output, const Target& target);

}  // namespace tessel::ops
