// The "depthwise" operator: depthwise 2-D convolution (one K×K filter per channel) of NCHW float32
// data (MobileNet's layers D1..D9 by name, or depthwise:N,C,H,W,K,S,P[,B]). The canonical
// expression is ops/'s NCHW depthwise convolution, and the blocked layout the template runs is a
// schedule's choice; with a channel block B it is the NCHW[B]c one, so a record tuned in one block
// (a graph's, taken from the producer) has a key of its own and never applies to another.
#include "ops/depthwise_conv2d.h"
#include "ops/workload_ops.h"
#include "search/spaces/operators/dataset_operator.h"
#include "support/registry.h"

namespace tessel::search {

namespace {

class DepthwiseOperator : public DatasetOperator<DepthwiseShape> {
 public:
  DepthwiseOperator() : DatasetOperator(mobilenet_depthwise_workloads()) {}

  std::string forms() const override { return "D1..D9, depthwise:N,C,H,W,K,S,P[,B]"; }

  DepthwiseShape parse(const std::string& text) const override { return parse_depthwise_shape(text); }

  std::vector<Tensor> expression(const DepthwiseShape& s) const override {
    if (s.block) {
      ops::OpInstance op = ops::blocked_depthwise_instance(s, s.block);
      return {op.inputs[0], op.inputs[1], op.output};
    }
    Tensor data = placeholder({s.n, s.c, s.h, s.w}, DataType::float32(), "data");
    Tensor kernel = placeholder({s.c, 1, s.k, s.k}, DataType::float32(), "kernel");
    ops::Conv2dParams params{{s.stride, s.stride}, {s.pad, s.pad}, {1, 1}, s.c};
    return {data, kernel, ops::depthwise_conv2d_nchw(data, kernel, params)};
  }

  int64_t reduction_size(const DepthwiseShape& s) const override { return s.reduction_size(); }
};

}  // namespace

TESSEL_REGISTER_PLUGIN(WorkloadOperator, depthwise,
                       "depthwise 2-D convolution, NCHW data (float32): D1..D9, depthwise:N,C,H,W,K,S,P[,B] "
                       "(B: a channel block)",
                       std::vector<ParamSpec>{},
                       [](const PluginParams&) { return std::make_unique<DepthwiseOperator>(); });

}  // namespace tessel::search
