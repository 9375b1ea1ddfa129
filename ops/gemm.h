// Matrix multiply, C[M,N] = A[M,K]·B[K,N], and dense, Y[M,N] = X[M,K]·W[N,K]ᵀ, with their CPU
// schedule (TVM's x86 GEMM recipe), one function taking a configuration (AutoTVM style): the
// default schedule is its fallback configuration for the target, and the tuning template
// (search/spaces/gemm_template.h) maps its knobs to the same configuration.
//
// Both repack the right-hand matrix inside the computation into panels [ceil(N/bn)][K][bn] (a
// stage tagged "pack"), so the inner loop reads bn consecutive floats per k; the packing runs in
// the same kernel and is part of its cost. The schedule keeps a rows × bn block of C in registers
// (a cache_write stage) while the k loop runs outside it, vectorizes the bn columns, and
// parallelizes over column panels so each thread's panel stays in its L2.
//
//   Target target = Target::parse("llvm_cpu -isa=avx2");
//   Tensor c = gemm(a, b, gemm_panel_width(n, target));       // 16-float panels on AVX2
//   GemmConfig config = gemm_fallback_config(c, target);      // 6 × 16 register tile
//   Schedule s = schedule_gemm(c, config);
#pragma once
#include <array>

#include "ir/schedule.h"
#include "target/target.h"

namespace tessel::ops {

// bn = 0 picks gemm_panel_width(N) for the host. Tagged "gemm".
Tensor gemm(const Tensor& a, const Tensor& b, int64_t bn = 0, const std::string& name = "C");
// bn as for gemm. Tagged "dense".
Tensor dense(const Tensor& x, const Tensor& w, int64_t bn = 0, const std::string& name = "Y");
// dense with W given already packed, panels[ceil(N/bn)][K][bn] = W[jo·bn + ji][k] (zero past row N),
// as a model's constant weights are, once, at compile time (the graph's layout pass): the kernel
// reads the panels where dense would pack them. Tagged "dense"; the dense schedule applies.
Tensor dense_packed(const Tensor& x, const Tensor& panels, int64_t n, const std::string& name = "Y");

// The panel width for the target: two vectors when that divides N, else four, one, three or half
// a vector, else one vector (the last panel then zero-padded).
int64_t gemm_panel_width(int64_t n, const Target& target);

// The panel width of a dense layer of M rows: gemm_panel_width's, except for one row (a
// classifier at batch 1, a matrix-vector product), whose register tile is a single row: there a
// panel of one vector, or half of one, leaves one accumulator and the k loop waits on each FMA's
// latency, so the panel is four vectors (four accumulators), the last panel zero-padded.
int64_t dense_panel_width(int64_t m, int64_t n, const Target& target);

// The outer loops of the GEMM schedule, as GemmConfig::order names them.
enum GemmLoop : int { kGemmRowsOuter = 0, kGemmRowsMiddle = 1, kGemmPanels = 2 };

// One configuration of the GEMM schedule.
struct GemmConfig {
  int64_t panel = 0;        // the panel width bn the output was built with (checked)
  int64_t rows = 1;         // rows of the register tile; need not divide M (the last tile is partial)
  int64_t rows_middle = 1;  // register tiles per middle row loop; 1: no middle loop
  int64_t k_unroll = 1;     // k iterations of the inner k loop
  std::array<int, 3> order = {kGemmPanels, kGemmRowsOuter, kGemmRowsMiddle};  // outer loops, outermost first
  bool parallel_fused = false;  // the two outermost loops fused run in parallel, else the outermost
  bool unroll_k = true;         // unroll the inner k loop
};

// The fallback configuration of a gemm or dense `output` for `target`: a register tile of
// rows × bn floats whose accumulators fit the register file (ops/cpu_tiles.h), rows the largest
// divisor of M up to that bound (on CPUs where partial tiles pay, the bound itself with a partial
// last tile when the divisor is much smaller); 4 k iterations unrolled (a divisor of K); the
// panels outermost and in parallel.
GemmConfig gemm_fallback_config(const Tensor& output, const Target& target);

// The register tile of a GEMM-shaped stage: `acc` (a cache_write stage whose axes row_axis and
// row_axis + 1 are the tile's rows and vector lanes) computed at `at` of `consumer`, its reduction
// split by k_unroll outside the rows, the rows unrolled and the lanes vectorized. Shared by the
// GEMM and the Winograd convolution's batched GEMM. Returns the reduction's outer loop.
IterVar schedule_register_accumulator(Stage acc, const Stage& consumer, const IterVar& at,
                                      int64_t k_unroll, bool unroll_k, int row_axis);

// Whether a GEMM's "pack" stage only reads panels packed before the kernel runs (dense_packed's
// constant weights), so that no schedule can choose their width.
bool prepacked(const Tensor& pack);

// The GEMM schedule of a gemm or dense output. Throws UserError if config.panel is not the
// output's panel width or a factor is not positive.
Schedule schedule_gemm(const Tensor& output, const GemmConfig& config);

}  // namespace tessel::ops
