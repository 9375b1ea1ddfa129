// The "depthwise" operator: depthwise 2-D convolution (one K×K filter per channel) of NCHW float32
// data (MobileNet's layers D1..D9 by name, or depthwise:N,C,H,W,K,S,P). The canonical expression
// is ops/'s NCHW depthwise convolution; the blocked layout the template runs is a schedule's
// choice.
#include "ops/depthwise_conv2d.h"
#include "search/spaces/operators/dataset_operator.h"
#include "support/registry.h"

namespace tessel::search {

namespace {

class DepthwiseOperator : public DatasetOperator<DepthwiseShape> {
 public:
  DepthwiseOperator() : DatasetOperator(mobilenet_depthwise_workloads()) {}

  std::string forms() const override { return "D1..D9, depthwise:N,C,H,W,K,S,P"; }

  DepthwiseShape parse(const std::string& text) const override { return parse_depthwise_shape(text); }

  std::vector<Tensor> expression(const DepthwiseShape& s) const override {
    Tensor data = placeholder({s.n, s.c, s.h, s.w}, DataType::float32(), "data");
    Tensor kernel = placeholder({s.c, 1, s.k, s.k}, DataType::float32(), "kernel");
    ops::Conv2dParams params{{s.stride, s.stride}, {s.pad, s.pad}, {1, 1}, s.c};
    return {data, kernel, ops::depthwise_conv2d_nchw(data, kernel, params)};
  }

  int64_t reduction_size(const DepthwiseShape& s) const override { return s.reduction_size(); }
};

}  // namespace

TESSEL_REGISTER_PLUGIN(WorkloadOperator, depthwise,
                       "depthwise 2-D convolution, NCHW data (float32): D1..D9, depthwise:N,C,H,W,K,S,P",
                       std::vector<ParamSpec>{},
                       [](const PluginParams&) { return std::make_unique<DepthwiseOperator>(); });

}  // namespace tessel::search
