// GEMM and dense with packed right-hand panels, and their CPU schedule (ops/gemm.h).
#include "ops/gemm.h"

#include <algorithm>
#include <tuple>

#include "ops/cpu_tiles.h"
#include "ops/op_schedule.h"
#include "ops/tiling.h"
#include "runtime/ndarray.h"
#include "support/error.h"
#include "support/registry.h"

namespace tessel::ops {

namespace {

int64_t panel_width(int64_t n, int64_t bn) {
  if (bn < 0) user_error("gemm: panel width ", bn, " must be positive (or 0 to choose one)");
  return bn > 0 ? bn : gemm_panel_width(n, Target::host());
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

Tensor dense_packed(const Tensor& x, const Tensor& panels, int64_t n, const std::string& name) {
  check_matrix(x, "dense_packed");
  if (panels.ndim() != 3 || panels.shape()[1] != x.shape()[1] || n <= 0 ||
      (n + panels.shape()[2] - 1) / panels.shape()[2] != panels.shape()[0])
    user_error("dense_packed: the panels must be [ceil(", n, "/bn), ", x.shape()[1], ", bn] for ", n,
               " outputs of X ", x.shape()[0], "x", x.shape()[1], "; they are ", shape_str(panels.shape()));
  // The schedule finds its panels as the stage tagged "pack"; here that stage only reads them, and
  // the schedule inlines it (prepacked).
  Tensor read = compute(panels.shape(), [&](Var jo, Var k, Var ji) { return panels(jo, k, ji); }, name + ".panels",
                        "pack");
  return multiply_panels(x, read, n, name, "dense");
}

int64_t gemm_panel_width(int64_t n, const Target& target) {
  int64_t lanes = float_lanes(target.cpu());
  return first_divisor(n, {2 * lanes, 4 * lanes, lanes, 3 * lanes, lanes / 2}, lanes);
}

int64_t dense_panel_width(int64_t m, int64_t n, const Target& target) {
  int64_t lanes = float_lanes(target.cpu());
  return m == 1 && n > 2 * lanes ? 4 * lanes : gemm_panel_width(n, target);
}

GemmConfig gemm_fallback_config(const Tensor& output, const Target& target) {
  const CpuDescription& cpu = target.cpu();
  Tensor packed = find_by_tag(output, "pack");
  int64_t m = output.shape()[0], k = packed.shape()[1], bn = packed.shape()[2];
  // Rows the accumulators allow, and never more than a tile two vectors wide would have: a
  // narrower panel gains nothing from a taller tile.
  int64_t vectors = float_vectors(cpu, bn), cap = gemm_accumulator_cap(cpu);
  int64_t max_rows = std::max<int64_t>(
      1, std::min(accumulator_budget(cpu, vectors, cap) / vectors, accumulator_budget(cpu, 2, cap) / 2));
  // A divisor of M avoids the partial tile; where partial tiles pay, one much shorter than the
  // bound would waste the registers.
  int64_t divisor = largest_divisor_at_most(m, max_rows);
  bool partial = partial_register_tiles(cpu) && 4 * divisor < 3 * max_rows;
  GemmConfig config;
  config.panel = bn;
  config.rows = partial ? std::min(max_rows, m) : divisor;
  config.k_unroll = largest_divisor_at_most(k, 4);
  return config;
}

namespace {

void check_config(const GemmConfig& config, int64_t bn) {
  if (config.panel != bn)
    user_error("gemm schedule: the configuration's panel width ", config.panel, " differs from the ", bn,
               " the output was built with; build it with gemm(a, b, ", config.panel, ")");
  if (config.rows < 1 || config.rows_middle < 1 || config.k_unroll < 1)
    user_error("gemm schedule: rows (", config.rows, "), rows_middle (", config.rows_middle, ") and k_unroll (",
               config.k_unroll, ") must be positive");
  std::array<int, 3> sorted = config.order;
  std::sort(sorted.begin(), sorted.end());
  if (sorted != std::array<int, 3>{0, 1, 2})
    user_error("gemm schedule: the loop order must be a permutation of 0, 1, 2 (rows outer, rows middle, panels)");
}

// Tiles the output into register tiles; returns the loop the accumulator is computed at. A middle
// row factor of 1 makes no loop.
IterVar schedule_output(Stage c, const GemmConfig& config) {
  auto [rows_outer, rows_rest] = c.split(c.axis(0), config.rows_middle * config.rows);
  IterVar rows_middle, rows_inner = rows_rest;
  if (config.rows_middle > 1) std::tie(rows_middle, rows_inner) = c.split(rows_rest, config.rows);
  auto [panels, columns] = c.split(c.axis(1), config.panel);
  std::vector<IterVar> outer = {rows_outer, rows_middle, panels}, order;
  for (int position : config.order)
    if (outer[position].defined()) order.push_back(outer[position]);
  std::vector<IterVar> nest = order;
  nest.insert(nest.end(), {rows_inner, columns});
  c.reorder(nest);  // with the panels outermost, a thread sweeps all rows of a panel while it sits in L2
  if (config.parallel_fused && order.size() > 1) {
    order[1] = c.fuse(order[0], order[1]);
    order.erase(order.begin());
  }
  c.parallel(order.front());
  c.unroll(rows_inner);
  c.vectorize(columns);
  return order.back();
}

}  // namespace

IterVar schedule_register_accumulator(Stage acc, const Stage& consumer, const IterVar& at,
                                      int64_t k_unroll, bool unroll_k, int row_axis) {
  acc.compute_at(consumer, at);
  auto [ko, ki] = acc.split(acc.reduce_axis(0), k_unroll);
  IterVar rows = acc.axis(row_axis), lanes = acc.axis(row_axis + 1);
  acc.reorder({ko, ki, rows, lanes});
  if (unroll_k) acc.unroll(ki);
  acc.unroll(rows);
  acc.vectorize(lanes);
  return ko;
}

bool prepacked(const Tensor& pack) {
  std::vector<Tensor> reads = input_tensors(pack);
  return reads.size() == 1 && reads[0]->is_placeholder() && reads[0].shape() == pack.shape();
}

Schedule schedule_gemm(const Tensor& output, const GemmConfig& config) {
  Tensor packed = find_by_tag(output, "pack");
  check_config(config, packed.shape()[2]);
  Schedule s = create_schedule({output});
  Tensor acc = output_accumulator(s, output);
  IterVar at = schedule_output(s[output], config);
  schedule_register_accumulator(s[acc], s[output], at, config.k_unroll, config.unroll_k, 0);
  // The panels are zero-padded to whole panels, so the last, partial one multiplies in registers
  // like the others; only its store is cut at N.
  s[acc].compute_past_edge(s[acc].axis(1));
  Stage p = s[packed];
  if (prepacked(packed)) {
    p.compute_inline();
    return s;
  }
  p.parallel(p.axis(0));
  p.vectorize(p.axis(2));
  return s;
}

namespace {

std::unique_ptr<OpSchedule> make_gemm_schedule(const PluginParams& p) {
  int64_t rows = p.get_int("rows"), k_unroll = p.get_int("k_unroll");
  return std::make_unique<FunctionSchedule>([rows, k_unroll](const Tensor& out, const Target& target) {
    GemmConfig config = gemm_fallback_config(out, target);
    if (rows > 0) config.rows = rows;
    if (k_unroll > 0) config.k_unroll = k_unroll;
    return schedule_gemm(out, config);
  });
}

const std::vector<ParamSpec> kGemmParams = {
    {"rows", ParamType::Int, 0, "rows of the register tile (0: from the target's registers)", Allowed::at_least(0)},
    {"k_unroll", ParamType::Int, 0, "k iterations unrolled (0: a divisor of K up to 4)", Allowed::at_least(0)},
};

}  // namespace

TESSEL_REGISTER_OP_SCHEDULE(gemm, cpu, "GEMM on CPU: packed B panels, rows x bn register tile sized for the target",
                            kGemmParams, make_gemm_schedule);
TESSEL_REGISTER_OP_SCHEDULE(dense, cpu,
                            "dense (X·Wᵀ) on CPU: packed W panels, rows x bn register tile sized for the target",
                            kGemmParams, make_gemm_schedule);

}  // namespace tessel::ops
