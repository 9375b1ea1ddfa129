// The "conv2d" operator: 2-D convolution of NCHW float32 data with OIHW weights (ResNet-18's
// layers C1..C12 by name, or conv2d:N,C,H,W,OC,K,S,P). The canonical expression is ops/'s NCHW
// convolution with its padding stage; the blocked NCHWc layout the CPU template runs is a
// schedule's choice, not part of what is computed.
#include "ops/conv2d_nchw.h"
#include "search/spaces/operators/dataset_operator.h"
#include "support/registry.h"

namespace tessel::search {

namespace {

class Conv2dOperator : public DatasetOperator<Conv2dShape> {
 public:
  Conv2dOperator() : DatasetOperator(resnet18_conv2d_workloads()) {}

  std::string forms() const override { return "C1..C12, conv2d:N,C,H,W,OC,K,S,P"; }

  Conv2dShape parse(const std::string& text) const override { return parse_conv2d_shape(text); }

  std::vector<Tensor> expression(const Conv2dShape& s) const override {
    Tensor data = placeholder({s.n, s.c, s.h, s.w}, DataType::float32(), "data");
    Tensor kernel = placeholder({s.oc, s.c / s.groups, s.kh, s.kw}, DataType::float32(), "kernel");
    ops::Conv2dParams params{{s.stride, s.stride}, {s.pad, s.pad}, {s.dilation, s.dilation}, s.groups};
    return {data, kernel, ops::conv2d_nchw(data, kernel, params)};
  }

  int64_t reduction_size(const Conv2dShape& s) const override { return s.reduction_size(); }
};

}  // namespace

TESSEL_REGISTER_PLUGIN(WorkloadOperator, conv2d,
                       "2-D convolution, NCHW data and OIHW weights (float32): C1..C12, conv2d:N,C,H,W,OC,K,S,P",
                       std::vector<ParamSpec>{}, [](const PluginParams&) { return std::make_unique<Conv2dOperator>(); });

}  // namespace tessel::search
