// GEMM and dense with packed right-hand panels, and their CPU schedule (ops/gemm.h).
#include "ops/gemm.h"

#include "ops/op_schedule.h"
#include "ops/tiling.h"
#include "support/error.h"
#include "support/registry.h"

namespace tessel::ops {

namespace {

int64_t panel_width(int64_t n, int64_t bn) {
  if (bn < 0) user_error("gemm: panel width ", bn, " must be positive (or 0 to choose one)");
  return bn > 0 ? bn : first_divisor(n, {32, 64, 16, 48, 8}, 16);
}

// packed(jo, k, ji) = element (k, jo*bn + ji) of the right-hand matrix, zero past column n.
Tensor pack_panels(int64_t n, int64_t k_extent, int64_t bn, DataType dtype,
                   const std::function<Expr(Expr k, Expr j)>& read, const std::string& name) {
  return compute({(n + bn - 1) / bn, k_extent, bn}, [&](Var jo, Var k, Var ji) {
    Expr j = jo * Expr(bn) + ji;
    if (n % bn == 0) return read(k, j);
    // Select evaluates both sides, so clamp the column the padding lanes read.
    return select(j < Expr(n), read(k, min(j, Expr(n - 1))), make_zero(dtype));
  }, name, "pack");
}

Tensor multiply_panels(const Tensor& a, const Tensor& packed, int64_t n, const std::string& name,
                       const std::string& tag) {
  int64_t bn = packed.shape()[2];
  IterVar k = reduce_axis(a.shape()[1], "k");
  return compute({a.shape()[0], n}, [&](Var i, Var j) {
    return sum(a(i, k) * packed(j / Expr(bn), k, j % Expr(bn)), {k});
  }, name, tag);
}

void check_matrix(const Tensor& t, const char* op) {
  if (t.ndim() != 2) user_error(op, ": '", t.name(), "' has ", t.ndim(), " dimensions; it must be a matrix");
}

}  // namespace

Tensor gemm(const Tensor& a, const Tensor& b, int64_t bn, const std::string& name) {
  check_matrix(a, "gemm");
  check_matrix(b, "gemm");
  if (a.shape()[1] != b.shape()[0])
    user_error("gemm: A is ", a.shape()[0], "x", a.shape()[1], " but B is ", b.shape()[0], "x", b.shape()[1],
               "; the columns of A must equal the rows of B");
  int64_t n = b.shape()[1], width = panel_width(n, bn);
  Tensor packed = pack_panels(n, b.shape()[0], width, b.dtype(),
                              [&](Expr k, Expr j) { return b(k, j); }, name + ".packed_b");
  return multiply_panels(a, packed, n, name, "gemm");
}

Tensor dense(const Tensor& x, const Tensor& w, int64_t bn, const std::string& name) {
  check_matrix(x, "dense");
  check_matrix(w, "dense");
  if (x.shape()[1] != w.shape()[1])
    user_error("dense: X is ", x.shape()[0], "x", x.shape()[1], " but W is ", w.shape()[0], "x", w.shape()[1],
               "; X and W must have the same number of columns");
  int64_t n = w.shape()[0], width = panel_width(n, bn);
  Tensor packed = pack_panels(n, w.shape()[1], width, w.dtype(),
                              [&](Expr k, Expr j) { return w(j, k); }, name + ".packed_w");
  return multiply_panels(x, packed, n, name, "dense");
}

Schedule schedule_gemm_cpu(const Tensor& output, const GemmTiles& tiles) {
  Tensor packed = find_by_tag(output, "pack");
  int64_t m = output.shape()[0], k = packed.shape()[1], bn = packed.shape()[2];
  int64_t rows = tiles.rows > 0 ? tiles.rows : largest_divisor_at_most(m, 8);
  int64_t k_unroll = tiles.k_unroll > 0 ? tiles.k_unroll : largest_divisor_at_most(k, 4);

  Schedule s = create_schedule({output});
  Tensor acc = output_accumulator(s, output);
  Stage c = s[output];
  auto [io, jo, ii, ji] = c.tile(c.axis(0), c.axis(1), rows, bn);
  c.reorder({jo, io});  // a thread sweeps all rows of one panel while the panel sits in its L2
  c.parallel(jo);
  c.unroll(ii);
  c.vectorize(ji);

  Stage cc = s[acc];
  cc.compute_at(c, io);
  auto [ko, ki] = cc.split(cc.reduce_axis(0), k_unroll);
  cc.reorder({ko, ki, cc.axis(0), cc.axis(1)});
  cc.unroll(ki);
  cc.unroll(cc.axis(0));
  cc.vectorize(cc.axis(1));

  Stage p = s[packed];
  p.parallel(p.axis(0));
  p.vectorize(p.axis(2));
  return s;
}

namespace {

std::unique_ptr<OpSchedule> make_gemm_schedule(const PluginParams& p) {
  GemmTiles tiles{p.get_int("rows"), p.get_int("k_unroll")};
  return std::make_unique<FunctionSchedule>([tiles](const Tensor& out) { return schedule_gemm_cpu(out, tiles); });
}

const std::vector<ParamSpec> kGemmParams = {
    {"rows", ParamType::Int, 0, "rows of the register tile (0: a divisor of M up to 8)"},
    {"k_unroll", ParamType::Int, 0, "k iterations unrolled (0: a divisor of K up to 4)"},
};

}  // namespace

TESSEL_REGISTER_PLUGIN(OpSchedule, gemm, "GEMM on CPU: packed B panels, rows x bn register tile",
                       kGemmParams, make_gemm_schedule);
TESSEL_REGISTER_PLUGIN(OpSchedule, dense, "dense (X·Wᵀ) on CPU: packed W panels, rows x bn register tile",
                       kGemmParams, make_gemm_schedule);

}  // namespace tessel::ops
