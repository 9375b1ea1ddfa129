// Layout transforms between the canonical layouts (NCHW data, OIHW kernels) and the blocked ones
// the CPU schedules use (NCHW[x]c data, OIHW[x]i[y]o kernels, as in TVM's x86 conv2d_NCHWc), as
// computes so they can be compiled like any other op.
#pragma once
#include "ir/tensor.h"

namespace tessel::ops {

// [N, C, H, W] -> [N, C/block, H, W, block]; C must be a multiple of block. Tagged "layout_transform".
Tensor nchw_to_nchwc(const Tensor& data, int64_t block, const std::string& name = "data_nchwc");
// [N, C/b, H, W, b] -> [N, C, H, W].
Tensor nchwc_to_nchw(const Tensor& data, const std::string& name = "data_nchw");
// [N, C/b, H, W, b] -> [N, C/block, H, W, block]; C must be a multiple of block.
Tensor nchwc_to_nchwc(const Tensor& data, int64_t block, const std::string& name = "data_nchwc");
// [O, I, KH, KW] -> [O/o_block, I/i_block, KH, KW, i_block, o_block].
Tensor oihw_to_oihwio(const Tensor& kernel, int64_t i_block, int64_t o_block,
                      const std::string& name = "kernel_oihwio");

}  // namespace tessel::ops
