// The "pixels" operator: a 1x1, stride-1, unpadded convolution computed over its flattened pixels
// (ops/conv2d_pixels.h), written pixels:N,C,H,W,OC. It is an operator of its own, not a conv2d
// schedule, because its reduction is another expression (4-D, over pixels) whose register tiles
// span output rows, which the conv2d template's row tiles cannot express; the layout pass chooses
// it for a layer (ops::pixel_tiles_pay), and its records then go by this workload. The canonical
// expression is the computation with blocks of 1 (data [N, C, H, W, 1], kernel
// [OC, C, 1, 1, 1, 1]); the template runs the target's blocks.
#include <algorithm>

#include "datasets/workloads.h"
#include "ops/conv2d_pixels.h"
#include "search/spaces/workload_operator.h"
#include "support/registry.h"

namespace tessel::search {

namespace {

constexpr const char* kForm = "pixels:N,C,H,W,OC";
const std::vector<std::string> kFields = {"N", "C", "H", "W", "OC"};

class PixelsOperator : public ShapedOperator<ops::PixelsShape> {
 public:
  std::string forms() const override { return kForm; }

  ops::PixelsShape parse(const std::string& text) const override {
    size_t given = std::count(text.begin(), text.end(), ',') + 1;
    if (given != kFields.size())
      user_error("bad pixels workload \"", text, "\": ", given, " numbers given, 5 expected (", kForm, ")");
    std::vector<int64_t> v = parse_shape_fields("pixels", text, kFields);
    ops::PixelsShape s{v[0], v[1], v[2], v[3], v[4]};
    validate(s.conv2d());  // sizes positive and bounded, so the extents cannot overflow
    return s;
  }

  std::vector<Tensor> expression(const ops::PixelsShape& s) const override {
    Tensor data = placeholder({s.n, s.c, s.h, s.w, 1}, DataType::float32(), "data");
    Tensor kernel = placeholder({s.oc, s.c, 1, 1, 1, 1}, DataType::float32(), "kernel");
    return {data, kernel, ops::conv2d_nchwc_pixels(data, kernel)};
  }

  double flops(const ops::PixelsShape& s) const override { return s.flops(); }
  int64_t reduction_size(const ops::PixelsShape& s) const override { return s.c; }
  std::string describe(const ops::PixelsShape& s) const override {
    return detail::concat("N=", s.n, " C=", s.c, " H=", s.h, " W=", s.w, " OC=", s.oc, " (1x1 over pixels)");
  }
};

}  // namespace

TESSEL_REGISTER_PLUGIN(WorkloadOperator, pixels,
                       "1x1 stride-1 unpadded convolution over its flattened pixels, register tiles spanning rows "
                       "(float32): pixels:N,C,H,W,OC",
                       std::vector<ParamSpec>{},
                       [](const PluginParams&) { return std::make_unique<PixelsOperator>(); });

}  // namespace tessel::search
