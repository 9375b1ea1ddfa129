// The "block" operator: a fused block's chain of convolutions (ops/block_workload.h), so that
// `tessel tune-model` tunes MobileNet-V2's inverted residuals as the blocks they run as, and
// `tessel tune block:...` one of them alone.
#include "ops/block_workload.h"
#include "search/spaces/workload_operator.h"
#include "support/registry.h"

namespace tessel::search {

namespace {

class BlockOperator : public ShapedOperator<ops::BlockShape> {
 public:
  std::string forms() const override { return "block:N,C,H,W,B/cK,S,P,OC/dK,S,P/..."; }
  ops::BlockShape parse(const std::string& text) const override { return ops::parse_block_shape(text); }
  std::vector<Tensor> expression(const ops::BlockShape& s) const override { return ops::block_expression(s); }
  double flops(const ops::BlockShape& s) const override { return s.flops(); }
  int64_t reduction_size(const ops::BlockShape& s) const override { return s.reduction_size(); }
  std::string describe(const ops::BlockShape& s) const override { return ops::describe(s); }
};

}  // namespace

TESSEL_REGISTER_PLUGIN(WorkloadOperator, block,
                       "a fused block's chain of convolutions, each but the last with a bias and ReLU6 (float32): "
                       "block:N,C,H,W,B/cK,S,P,OC/dK,S,P/... (B: the input's channel block, 0 for NCHW)",
                       std::vector<ParamSpec>{}, [](const PluginParams&) { return std::make_unique<BlockOperator>(); });

}  // namespace tessel::search
