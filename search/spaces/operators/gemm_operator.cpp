// The "gemm" operator: C[m,n] = sum over k of A[m,k] · B[k,n], float32, row-major. Its workloads
// are written gemm:N (square) or gemm:M,N,K. The canonical expression is the plain product; the
// packed panels of ops/gemm.h are a schedule's business, not part of what is computed.
#include <charconv>

#include "search/spaces/operators/dataset_operator.h"
#include "support/registry.h"

namespace tessel::search {

namespace {

int64_t parse_square_size(const std::string& text) {
  int64_t n = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (error != std::errc() || end != text.data() + text.size())
    user_error("bad gemm size \"", text, "\" in the workload: expected an integer, e.g. gemm:1024");
  return n;
}

class GemmOperator : public DatasetOperator<GemmShape> {
 public:
  std::string forms() const override { return "gemm:N, gemm:M,N,K"; }

  GemmShape parse(const std::string& text) const override {
    if (text.find(',') != std::string::npos) return parse_gemm_shape(text);
    GemmShape shape = square_gemm(parse_square_size(text));
    validate(shape);
    return shape;
  }

  std::vector<Tensor> expression(const GemmShape& s) const override {
    Tensor a = placeholder({s.m, s.k}, DataType::float32(), "A");
    Tensor b = placeholder({s.k, s.n}, DataType::float32(), "B");
    IterVar k = reduce_axis(s.k, "k");
    Tensor c = compute({s.m, s.n}, [&](Var i, Var j) { return sum(a(i, k) * b(k, j), {k}); }, "C", "gemm");
    return {a, b, c};
  }

  int64_t reduction_size(const GemmShape& s) const override { return s.k; }
};

}  // namespace

TESSEL_REGISTER_PLUGIN(WorkloadOperator, gemm, "matrix product C = A·B (float32, row-major): gemm:N, gemm:M,N,K",
                       std::vector<ParamSpec>{}, [](const PluginParams&) { return std::make_unique<GemmOperator>(); });

}  // namespace tessel::search
