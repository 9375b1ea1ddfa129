// The "winograd" operator: a 3×3 stride-1 convolution computed by Winograd's F(M×M, 3×3)
// (ops/conv2d_winograd.h), written winograd:N,C,H,W,OC,P,M. It is an operator of its own, not a
// conv2d schedule, because its weights are an input in the transformed layout (the layout pass
// transforms them at compile time). The canonical expression is the computation with blocks of 1
// (data [N, C, H, W, 1], weights [α, α, OC, C, 1]); the template runs the target's blocks.
#include <algorithm>

#include "datasets/workloads.h"
#include "ops/conv2d_winograd.h"
#include "search/spaces/workload_operator.h"
#include "support/registry.h"

namespace tessel::search {

namespace {

constexpr const char* kForm = "winograd:N,C,H,W,OC,P,M";
const std::vector<std::string> kFields = {"N", "C", "H", "W", "OC", "P", "M"};

class WinogradOperator : public ShapedOperator<ops::WinogradShape> {
 public:
  std::string forms() const override { return kForm; }

  ops::WinogradShape parse(const std::string& text) const override {
    size_t given = std::count(text.begin(), text.end(), ',') + 1;
    if (given != kFields.size())
      user_error("bad winograd workload \"", text, "\": ", given, " numbers given, 7 expected (", kForm, ")");
    std::vector<int64_t> v = parse_shape_fields("winograd", text, kFields);
    ops::WinogradShape s{v[0], v[1], v[2], v[3], v[4], v[5], v[6]};
    // The direct convolution's checks: sizes positive and bounded, so its extents cannot overflow.
    validate(Conv2dShape{s.n, s.c, s.h, s.w, s.oc, 3, 3, 1, s.pad});
    if (!ops::winograd_tile_supported(s.tile))
      user_error("bad winograd workload \"", text, "\": output tile ", s.tile, " is not supported; use 2 or 4");
    return s;
  }

  std::vector<Tensor> expression(const ops::WinogradShape& s) const override {
    Tensor data = placeholder({s.n, s.c, s.h, s.w, 1}, DataType::float32(), "data");
    Tensor weights = placeholder({s.tile + 2, s.tile + 2, s.oc, s.c, 1}, DataType::float32(), "weights");
    return {data, weights, ops::conv2d_winograd_nchwc(data, weights, {s.pad, s.pad}, s.tile)};
  }

  double flops(const ops::WinogradShape& s) const override { return s.flops(); }
  // The products summed into an output, weighted by how much the transforms scale them: the
  // measured candidates' rounding error grows with both.
  int64_t reduction_size(const ops::WinogradShape& s) const override {
    return s.c * ops::winograd_transform_scale(s.tile);
  }
  std::string describe(const ops::WinogradShape& s) const override {
    return detail::concat("N=", s.n, " C=", s.c, " H=", s.h, " W=", s.w, " OC=", s.oc, " P=", s.pad, " M=", s.tile);
  }
};

}  // namespace

TESSEL_REGISTER_PLUGIN(WorkloadOperator, winograd,
                       "3x3 stride-1 convolution by Winograd's F(M x M, 3 x 3), weights transformed (float32): "
                       "winograd:N,C,H,W,OC,P,M",
                       std::vector<ParamSpec>{},
                       [](const PluginParams&) { return std::make_unique<WinogradOperator>(); });

}  // namespace tessel::search
