// The benchmark harness: runs Tessel and a vendor baseline on the same random inputs, times both
// in the same process with the sides alternating (so both share the machine's noise), checks that
// they agree, and reports the result as JSON or as a table row.
//
// The harness itself (compare_kernels, printing) lives in bench_runner.cpp and the per-operator cases
// in bench_cases.cpp, so tests can link the harness without Tessel's kernels.
#pragma once
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "benchmarks/baselines/prepared_kernel.h"
#include "benchmarks/tessel_kernels.h"
#include "datasets/workloads.h"
#include "support/timing.h"
#include "target/target.h"

namespace tessel {

// The schedule Tessel's side of a case runs, and what to call it in the results.
// An unset `build` compiles the operator's default schedule for the benchmark's target.
struct TesselSchedule {
  KernelBuilder build;
  std::string label = "default";  // or e.g. "tuned#42" (a configuration of a tuning database)
};

struct BenchOptions {
  // What Tessel compiles for; the vendor side is held to its ISA by the benchmark environment
  // (benchmarks/bench_environment.h). Its thread count is not read: `threads` is both sides'.
  Target target = Target::host();
  int threads = 2;   // for both sides
  int repeats = 15;  // samples per side, >= 1
  int warmup = 3;    // untimed calls per side before sampling
  // Pause after each side's sample, for idle worker threads to stop spinning before the other side
  // runs. Off by default: measured here, pausing slowed both sides (threads must be woken, caches
  // go cold); bench_environment.h bounds the spinning instead.
  double settle_ms = 0;
  // Each sample one call after the side's weights are evicted from the caches
  // (PreparedKernel::evict_weights), as tuning measures with search::MeasureOptions::flush_cache.
  bool cache_flush = false;
  // Tessel's schedule for a case, by the case's workload name (C6, gemm:1024, conv2d:...); unset:
  // every case runs its ops/ default schedule.
  std::function<TesselSchedule(const std::string& workload)> schedule_for;
  // Convolution cases that are 3×3, stride 1, groups 1 run Tessel's Winograd convolution (the
  // layout pass's choice in a model, ops/conv2d_winograd.h) instead of the direct one, with the
  // tile ops::winograd_tile picks (2 where it keeps the direct convolution).
  bool winograd = false;
};

// What is being compared, independent of who computes it.
struct CaseSpec {
  std::string op;        // "gemm", "conv2d", "depthwise"
  std::string workload;  // "C6", "n1024", "custom"
  std::string shape;     // describe() of the shape
  double flops = 0;
  int64_t output_elements = 0;
  int64_t reduction_size = 0;  // products summed into each output: scales the error tolerance
};

struct CaseResult {
  CaseSpec spec;
  std::string baseline;  // "openblas" | "onednn"
  TimingStats tessel, base;
  double max_abs_err = 0;
  double tolerance = 0;
  bool correct = false;
  int threads = 0;
  std::string openblas_core;  // the OpenBLAS kernel family, for GEMM cases only
  std::string schedule = "default";  // TesselSchedule::label of Tessel's side
  std::string target;        // Target::key() of Tessel's side, e.g. "llvm_cpu -isa=avx2"
  std::string baseline_isa;  // what the vendor library reports it ran: "Haswell", "avx2", ...
  bool cache_flush = false;  // timed cold: BenchOptions::cache_flush

  double speedup() const { return base.median_us / tessel.median_us; }
  double tessel_gflops() const { return spec.flops / tessel.median_us * 1e-3; }
  double baseline_gflops() const { return spec.flops / base.median_us * 1e-3; }
  nlohmann::ordered_json to_json() const;  // the documented keys first, in a fixed order
};

// Largest |a - b| two fp32 results may differ by after summing `reduction_size` products of
// inputs in [-1, 1] in different orders.
double error_tolerance(int64_t reduction_size);

// Times both prepared sides (alternating) and compares their outputs.
CaseResult compare_kernels(const CaseSpec& spec, const PreparedKernel& tessel, const PreparedKernel& baseline,
                           const BenchOptions& options);

// Uniform random values in [-1, 1] from a fixed seed, so every run sees the same inputs.
std::vector<float> random_tensor(int64_t elements, uint32_t seed);

// An operator's random inputs (fixed seeds) in canonical layouts: A[M,K] and B[K,N] of a GEMM; the
// NCHW data and the OIHW (C×1×K×K) weights of a convolution. Every bench case runs both sides on
// them, and `tessel tune` times its baseline on them (bench_cases.cpp).
struct OperatorInputs {
  std::vector<float> first, second;
};
OperatorInputs random_inputs(const GemmShape& shape);
OperatorInputs random_inputs(const Conv2dShape& shape);
OperatorInputs random_inputs(const DepthwiseShape& shape);

// The vendor library's kernel on `inputs`: OpenBLAS sgemm, oneDNN convolution, oneDNN grouped
// convolution for depthwise.
PreparedKernel prepare_baseline(const GemmShape& shape, const OperatorInputs& inputs, int threads);
PreparedKernel prepare_baseline(const Conv2dShape& shape, const OperatorInputs& inputs, int threads);
PreparedKernel prepare_baseline(const DepthwiseShape& shape, const OperatorInputs& inputs, int threads);

// The three benchmark cases (bench_cases.cpp): Tessel against OpenBLAS sgemm, oneDNN conv2d and
// oneDNN depthwise (grouped) convolution, Tessel compiled for options.target.
CaseResult run_gemm_case(const std::string& workload, const GemmShape& shape, const BenchOptions& options);
CaseResult run_conv2d_case(const Workload<Conv2dShape>& workload, const BenchOptions& options);
CaseResult run_depthwise_case(const Workload<DepthwiseShape>& workload, const BenchOptions& options);

// Prints results as they arrive: one JSON object per line, or an aligned table whose finish()
// adds the geometric-mean speedup when there was more than one case.
class ResultPrinter {
 public:
  ResultPrinter(std::ostream& out, bool json) : out_(out), json_(json) {}
  void print(const CaseResult& result);
  void finish();

 private:
  std::ostream& out_;
  bool json_;
  std::vector<double> speedups_;
};

}  // namespace tessel
