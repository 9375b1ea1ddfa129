// The tensor expression of a reference workload (datasets/workloads.h) in the layout Tessel's CPU
// schedules run it in: GEMM on row-major matrices, conv2d and depthwise on blocked NCHWc data
// with OIHWio kernels, blocked for the target's vector width (ops/conv2d_nchwc.h). The benchmark,
// `tessel lower` and the tuner's tasks all build operators through here, so they agree on what "C6"
// means on a target.
#pragma once
#include <vector>

#include "datasets/workloads.h"
#include "ir/tensor.h"
#include "target/target.h"

namespace tessel::ops {

struct OpInstance {
  std::vector<Tensor> inputs;  // placeholders, in call order
  Tensor output;
  // The arguments of the compiled kernel: inputs, then the output.
  std::vector<Tensor> args() const;
};

// Inputs: A [M, K] and B [K, N]; B packed in panels of gemm_panel_width(N, target).
OpInstance gemm_instance(const GemmShape& shape, const Target& target);
// Inputs: data [N, C/ib, H, W, ib] and kernel [OC/ob, C/groups/ib, KH, KW, ib, ob], blocks from
// choose_conv2d_blocks for the target.
OpInstance conv2d_instance(const Conv2dShape& shape, const Target& target);
// Inputs: data [N, C/b, H, W, b] and kernel [C/b, 1, K, K, 1, b], b the shape's block or else
// choose_depthwise_block's.
OpInstance depthwise_instance(const DepthwiseShape& shape, const Target& target);
// The same in channel block `block`, whatever the shape's.
OpInstance blocked_depthwise_instance(const DepthwiseShape& shape, int64_t block);

}  // namespace tessel::ops
