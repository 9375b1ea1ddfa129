// Reference workloads and command-line shape parsing: see workloads.h.
#include "datasets/workloads.h"

#include <charconv>
#include <optional>
#include <sstream>

#include "support/error.h"

namespace tessel {

namespace {

// Larger tensors would not fit this machine's memory next to their copies in other layouts.
constexpr double kMaxTensorElements = double(1 << 30);

const std::vector<std::string> kGemmFields = {"M", "N", "K"};
const std::vector<std::string> kConv2dFields = {"N", "C", "H", "W", "OC", "K", "S", "P"};
const std::vector<std::string> kDepthwiseFields = {"N", "C", "H", "W", "K", "S", "P"};
const std::vector<std::string> kBlockedDepthwiseFields = {"N", "C", "H", "W", "K", "S", "P", "B"};

std::string join_fields(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i ? "," : "") + names[i];
  return out;
}

std::string trim(const std::string& text) {
  size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(" \t") - begin + 1);
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream in(text);
  while (std::getline(in, field, ',')) fields.push_back(trim(field));
  if (!text.empty() && text.back() == ',') fields.push_back("");  // getline drops a trailing empty field
  return fields;
}

}  // namespace

std::vector<int64_t> parse_shape_fields(const std::string& kind, const std::string& text,
                                        const std::vector<std::string>& names) {
  std::string expected = join_fields(names);
  std::vector<std::string> fields = split_commas(text);
  if (fields.size() != names.size())
    user_error("bad ", kind, " shape \"", text, "\": expected ", names.size(), " comma-separated integers ",
               expected, ", got ", fields.size());
  std::vector<int64_t> values(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& field = fields[i];
    auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), values[i]);
    if (field.empty() || error != std::errc() || end != field.data() + field.size())
      user_error("bad ", kind, " shape \"", text, "\": ", names[i], " is \"", field,
                 "\", not an integer in range (expected ", expected, ")");
  }
  return values;
}

namespace {

// Also bounded above, so that extents computed from the sizes (H + 2 * pad, ...) cannot overflow.
std::optional<std::string> at_least(const char* name, int64_t value, int64_t minimum) {
  constexpr int64_t kMaxSize = int64_t{1} << 30;
  if (value > kMaxSize) return detail::concat(name, " must be <= ", kMaxSize, ", got ", value);
  if (value >= minimum) return std::nullopt;
  return detail::concat(name, " must be >= ", minimum, ", got ", value);
}

std::optional<std::string> first_problem(std::initializer_list<std::optional<std::string>> checks) {
  for (const auto& problem : checks)
    if (problem) return problem;
  return std::nullopt;
}

std::optional<std::string> too_large(std::initializer_list<double> tensor_elements) {
  for (double elements : tensor_elements)
    if (elements > kMaxTensorElements)
      return detail::concat("a tensor of ", elements, " elements is too large (at most ", kMaxTensorElements, ")");
  return std::nullopt;
}

std::optional<std::string> problem_of(const GemmShape& s) {
  if (auto p = first_problem({at_least("M", s.m, 1), at_least("N", s.n, 1), at_least("K", s.k, 1)})) return p;
  return too_large({double(s.m) * s.k, double(s.k) * s.n, double(s.m) * s.n});
}

std::optional<std::string> empty_output(int64_t padded_h, int64_t padded_w, int64_t kernel_extent_h,
                                        int64_t kernel_extent_w) {
  if (kernel_extent_h <= padded_h && kernel_extent_w <= padded_w) return std::nullopt;
  return detail::concat("the kernel (extent ", kernel_extent_h, "x", kernel_extent_w,
                        ") is larger than the padded input ", padded_h, "x", padded_w);
}

std::optional<std::string> problem_of(const Conv2dShape& s) {
  auto sizes = first_problem({at_least("N", s.n, 1), at_least("C", s.c, 1), at_least("H", s.h, 1),
                              at_least("W", s.w, 1), at_least("OC", s.oc, 1), at_least("KH", s.kh, 1),
                              at_least("KW", s.kw, 1), at_least("stride", s.stride, 1),
                              at_least("pad", s.pad, 0), at_least("dilation", s.dilation, 1),
                              at_least("groups", s.groups, 1)});
  if (sizes) return sizes;
  if (s.c % s.groups || s.oc % s.groups)
    return detail::concat("C (", s.c, ") and OC (", s.oc, ") must be multiples of groups (", s.groups, ")");
  auto extent = [&](int64_t k) { return s.dilation * (k - 1) + 1; };
  if (auto p = empty_output(s.h + 2 * s.pad, s.w + 2 * s.pad, extent(s.kh), extent(s.kw))) return p;
  return too_large({double(s.n) * s.c * s.h * s.w, double(s.oc) * s.reduction_size(),
                    double(s.n) * s.oc * s.out_h() * s.out_w()});
}

std::optional<std::string> problem_of(const DepthwiseShape& s) {
  auto sizes = first_problem({at_least("N", s.n, 1), at_least("C", s.c, 1), at_least("H", s.h, 1),
                              at_least("W", s.w, 1), at_least("K", s.k, 1), at_least("S", s.stride, 1),
                              at_least("P", s.pad, 0)});
  if (sizes) return sizes;
  if (s.block < 0 || (s.block > 0 && s.c % s.block != 0))
    return detail::concat("the channel block B (", s.block, ") must divide C (", s.c, ")");
  if (auto p = empty_output(s.h + 2 * s.pad, s.w + 2 * s.pad, s.k, s.k)) return p;
  return too_large({double(s.n) * s.c * s.h * s.w, double(s.n) * s.c * s.out_h() * s.out_w()});
}

template <typename Shape>
void validate_shape(const std::string& kind, const Shape& shape) {
  if (auto problem = problem_of(shape)) user_error("bad ", kind, " shape (", describe(shape), "): ", *problem);
}

template <typename Shape>
Shape validated_parse(const std::string& kind, const std::string& text, Shape shape) {
  if (auto problem = problem_of(shape)) user_error("bad ", kind, " shape \"", text, "\": ", *problem);
  return shape;
}

template <typename Shape>
std::vector<Workload<Shape>> find_workloads(const std::string& kind, const std::string& name,
                                            const std::vector<Workload<Shape>>& table) {
  if (name == "all") return table;
  for (const auto& workload : table)
    if (workload.name == name) return {workload};
  user_error("unknown ", kind, " workload \"", name, "\"; valid: ", table.front().name, "..",
             table.back().name, " or all");
}

Conv2dShape resnet_layer(int64_t size, int64_t in_channels, int64_t out_channels, int64_t kernel,
                         int64_t stride, int64_t pad) {
  return {1, in_channels, size, size, out_channels, kernel, kernel, stride, pad};
}

DepthwiseShape mobilenet_layer(int64_t size, int64_t channels, int64_t stride) {
  return {1, channels, size, size, 3, stride, 1};
}

}  // namespace

const std::vector<Workload<Conv2dShape>>& resnet18_conv2d_workloads() {
  static const std::vector<Workload<Conv2dShape>> table = {
      {"C1", resnet_layer(224, 3, 64, 7, 2, 3)},     {"C2", resnet_layer(56, 64, 64, 3, 1, 1)},
      {"C3", resnet_layer(56, 64, 64, 1, 1, 0)},     {"C4", resnet_layer(56, 64, 128, 3, 2, 1)},
      {"C5", resnet_layer(56, 64, 128, 1, 2, 0)},    {"C6", resnet_layer(28, 128, 128, 3, 1, 1)},
      {"C7", resnet_layer(28, 128, 256, 3, 2, 1)},   {"C8", resnet_layer(28, 128, 256, 1, 2, 0)},
      {"C9", resnet_layer(14, 256, 256, 3, 1, 1)},   {"C10", resnet_layer(14, 256, 512, 3, 2, 1)},
      {"C11", resnet_layer(14, 256, 512, 1, 2, 0)},  {"C12", resnet_layer(7, 512, 512, 3, 1, 1)},
  };
  return table;
}

const std::vector<Workload<DepthwiseShape>>& mobilenet_depthwise_workloads() {
  static const std::vector<Workload<DepthwiseShape>> table = {
      {"D1", mobilenet_layer(112, 32, 1)},  {"D2", mobilenet_layer(112, 64, 2)},
      {"D3", mobilenet_layer(56, 128, 1)},  {"D4", mobilenet_layer(56, 128, 2)},
      {"D5", mobilenet_layer(28, 256, 1)},  {"D6", mobilenet_layer(28, 256, 2)},
      {"D7", mobilenet_layer(14, 512, 1)},  {"D8", mobilenet_layer(14, 512, 2)},
      {"D9", mobilenet_layer(7, 1024, 1)},
  };
  return table;
}

std::vector<Workload<Conv2dShape>> find_conv2d_workloads(const std::string& name) {
  return find_workloads("conv2d", name, resnet18_conv2d_workloads());
}

std::vector<Workload<DepthwiseShape>> find_depthwise_workloads(const std::string& name) {
  return find_workloads("depthwise", name, mobilenet_depthwise_workloads());
}

GemmShape square_gemm(int64_t n) {
  if (n < 1) user_error("bad gemm size --n ", n, ": must be >= 1");
  GemmShape shape{n, n, n};
  validate(shape);
  return shape;
}

GemmShape parse_gemm_shape(const std::string& text) {
  auto v = parse_shape_fields("gemm", text, kGemmFields);
  return validated_parse("gemm", text, GemmShape{v[0], v[1], v[2]});
}

Conv2dShape parse_conv2d_shape(const std::string& text) {
  auto v = parse_shape_fields("conv2d", text, kConv2dFields);
  return validated_parse("conv2d", text, Conv2dShape{v[0], v[1], v[2], v[3], v[4], v[5], v[5], v[6], v[7]});
}

DepthwiseShape parse_depthwise_shape(const std::string& text) {
  if (split_commas(text).size() == kBlockedDepthwiseFields.size()) {
    auto v = parse_shape_fields("depthwise", text, kBlockedDepthwiseFields);
    return validated_parse("depthwise", text, DepthwiseShape{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]});
  }
  auto v = parse_shape_fields("depthwise", text, kDepthwiseFields);
  return validated_parse("depthwise", text, DepthwiseShape{v[0], v[1], v[2], v[3], v[4], v[5], v[6]});
}

void validate(const GemmShape& shape) { validate_shape("gemm", shape); }
void validate(const Conv2dShape& shape) { validate_shape("conv2d", shape); }
void validate(const DepthwiseShape& shape) { validate_shape("depthwise", shape); }

std::string describe(const GemmShape& s) { return detail::concat("M=", s.m, " N=", s.n, " K=", s.k); }

std::string describe(const Conv2dShape& s) {
  std::string text = detail::concat("N=", s.n, " C=", s.c, " H=", s.h, " W=", s.w, " OC=", s.oc, " K=", s.kh);
  if (s.kw != s.kh) text += detail::concat("x", s.kw);
  text += detail::concat(" S=", s.stride, " P=", s.pad);
  if (s.dilation != 1) text += detail::concat(" D=", s.dilation);
  if (s.groups != 1) text += detail::concat(" G=", s.groups);
  return text;
}

std::string describe(const DepthwiseShape& s) {
  std::string text =
      detail::concat("N=", s.n, " C=", s.c, " H=", s.h, " W=", s.w, " K=", s.k, " S=", s.stride, " P=", s.pad);
  return s.block ? text + detail::concat(" B=", s.block) : text;
}

}  // namespace tessel
