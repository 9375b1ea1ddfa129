// One side of a benchmark comparison: a kernel whose inputs are already in the layout it prefers,
// so that timing `run` measures the computation alone. Everything a side needs (converted inputs,
// output buffer, library handles) lives in the closures, which own it. It sits beside the baselines,
// the lowest folder of benchmarks/, since Tessel's side (benchmarks/tessel_kernels.h) returns it too.
#pragma once
#include <functional>
#include <string>

namespace tessel {

struct PreparedKernel {          // one side of a comparison, with inputs already in its preferred layout
  std::string name;              // "tessel", "openblas", "onednn"
  std::function<void()> run;     // one execution; the only thing timed
  std::function<void(float*)> read_output;  // copy result to canonical layout (row-major MxN or NCHW), untimed
  // Evicts the inputs but the first (the weights, B of a GEMM) from the caches, untimed, for cold
  // timing as search::MeasureOptions::flush_cache measures candidates. x86 only (support/timing.h).
  std::function<void()> evict_weights;
};

}  // namespace tessel
