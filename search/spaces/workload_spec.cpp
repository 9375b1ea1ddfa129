// Workload-name parsing (search/spaces/workload_spec.h).
#include "search/spaces/workload_spec.h"

#include <charconv>
#include <optional>

#include "support/error.h"

namespace tessel::search {

namespace {

constexpr const char* kValidForms =
    "valid: C1..C12, D1..D9, gemm:N, gemm:M,N,K, conv2d:N,C,H,W,OC,K,S,P, depthwise:N,C,H,W,K,S,P";

int64_t parse_square_size(const std::string& text) {
  int64_t n = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (error != std::errc() || end != text.data() + text.size())
    user_error("bad gemm size \"", text, "\" in the workload: expected an integer, e.g. gemm:1024");
  return n;
}

GemmShape parse_gemm(const std::string& text) {
  if (text.find(',') != std::string::npos) return parse_gemm_shape(text);
  GemmShape shape = square_gemm(parse_square_size(text));
  validate(shape);
  return shape;
}

// The reference workload called `name` (C6, D3), if there is one; "all" is a set, not a workload.
template <typename Shape>
std::optional<Shape> named_workload(const std::vector<Workload<Shape>>& workloads, const std::string& name) {
  for (const Workload<Shape>& w : workloads)
    if (w.name == name) return w.shape;
  return std::nullopt;
}

}  // namespace

std::string WorkloadSpec::op() const {
  static const char* names[] = {"gemm", "conv2d", "depthwise"};
  return names[shape.index()];
}

double WorkloadSpec::flops() const {
  return std::visit([](const auto& s) { return s.flops(); }, shape);
}

int64_t WorkloadSpec::reduction_size() const {
  return std::visit([](const auto& s) -> int64_t {
    if constexpr (std::is_same_v<std::decay_t<decltype(s)>, GemmShape>) return s.k;
    else return s.reduction_size();
  }, shape);
}

std::string WorkloadSpec::describe() const {
  return std::visit([](const auto& s) { return tessel::describe(s); }, shape);
}

WorkloadSpec parse_workload(const std::string& name) {
  size_t colon = name.find(':');
  if (colon != std::string::npos) {
    std::string kind = name.substr(0, colon), rest = name.substr(colon + 1);
    if (kind == "gemm") return {name, parse_gemm(rest)};
    if (kind == "conv2d") return {name, parse_conv2d_shape(rest)};
    if (kind == "depthwise") return {name, parse_depthwise_shape(rest)};
    user_error("unknown workload kind \"", kind, "\" in \"", name, "\"; ", kValidForms);
  }
  if (auto conv = named_workload(resnet18_conv2d_workloads(), name)) return {name, *conv};
  if (auto depthwise = named_workload(mobilenet_depthwise_workloads(), name)) return {name, *depthwise};
  user_error("unknown workload \"", name, "\"; ", kValidForms);
}

}  // namespace tessel::search
