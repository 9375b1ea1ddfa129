// Reference workloads as tensor expressions in Tessel's CPU layouts (ops/workload_ops.h).
#include "ops/workload_ops.h"

#include "ops/conv2d_nchwc.h"
#include "ops/depthwise_conv2d.h"
#include "ops/gemm.h"

namespace tessel::ops {

std::vector<Tensor> OpInstance::args() const {
  std::vector<Tensor> all = inputs;
  all.push_back(output);
  return all;
}

OpInstance gemm_instance(const GemmShape& s, const Target& target) {
  Tensor a = placeholder({s.m, s.k}, DataType::float32(), "A");
  Tensor b = placeholder({s.k, s.n}, DataType::float32(), "B");
  return {{a, b}, gemm(a, b, gemm_panel_width(s.n, target))};
}

OpInstance conv2d_instance(const Conv2dShape& s, const Target& target) {
  Conv2dBlocks blocks = choose_conv2d_blocks(s.c, s.oc, s.groups, target);
  Tensor data = placeholder({s.n, s.c / blocks.ib, s.h, s.w, blocks.ib}, DataType::float32(), "data");
  Tensor kernel = placeholder({s.oc / blocks.ob, s.c / s.groups / blocks.ib, s.kh, s.kw, blocks.ib, blocks.ob},
                              DataType::float32(), "kernel");
  Conv2dParams params{{s.stride, s.stride}, {s.pad, s.pad}, {s.dilation, s.dilation}, s.groups};
  return {{data, kernel}, conv2d_nchwc(data, kernel, params)};
}

OpInstance depthwise_instance(const DepthwiseShape& s, const Target& target) {
  return blocked_depthwise_instance(s, s.block ? s.block : choose_depthwise_block(s.c, target));
}

OpInstance blocked_depthwise_instance(const DepthwiseShape& s, int64_t block) {
  Tensor data = placeholder({s.n, s.c / block, s.h, s.w, block}, DataType::float32(), "data");
  Tensor kernel = placeholder({s.c / block, 1, s.k, s.k, 1, block}, DataType::float32(), "kernel");
  Conv2dParams params{{s.stride, s.stride}, {s.pad, s.pad}, {1, 1}, 1};
  return {{data, kernel}, depthwise_conv2d_nchwc(data, kernel, params)};
}

}  // namespace tessel::ops
