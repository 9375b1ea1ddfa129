// Vendor baselines of tuning workloads (tools/vendor_baseline.h): the benchmark's baseline kernel
// on the benchmark's inputs (benchmarks/bench_runner.h), timed like a candidate, with the ISA the
// vendor library reports it ran.
#include "tools/vendor_baseline.h"

#include "benchmarks/baselines/onednn.h"
#include "benchmarks/baselines/openblas.h"
#include "benchmarks/bench_runner.h"
#include "support/timing.h"

namespace tessel::tools {

namespace {

template <typename Shape>
search::Baseline time_baseline(const Shape& shape, int threads, const std::string& isa, bool flush_cache) {
  PreparedKernel kernel = prepare_baseline(shape, random_inputs(shape), threads);
  TimingStats t = flush_cache ? measure_each_after(kernel.run, kernel.evict_weights, 3, 7) : measure(kernel.run, 3, 7);
  return {kernel.name, t.median_us, isa};
}

}  // namespace

search::Baseline measure_vendor_baseline(const search::WorkloadSpec& workload, int threads, bool flush_cache) {
  if (auto* gemm = workload.shape_if<GemmShape>()) return time_baseline(*gemm, threads, openblas_corename(), flush_cache);
  if (auto* conv = workload.shape_if<Conv2dShape>()) return time_baseline(*conv, threads, onednn_isa_name(), flush_cache);
  if (auto* depthwise = workload.shape_if<DepthwiseShape>()) return time_baseline(*depthwise, threads, onednn_isa_name(), flush_cache);
  return {};  // an operator without a vendor baseline
}

}  // namespace tessel::tools
