// The vendor library's time for a tuning workload (OpenBLAS sgemm for GEMM, oneDNN for conv2d and
// depthwise), measured in this process like a candidate: the baseline `tessel tune`, `tessel
// experiment run` and `tessel experiment record` report beside the tuned result. Call it after
// reexec_with_benchmark_environment (benchmarks/bench_environment.h), so OpenBLAS runs without the
// machine's presets.
#pragma once
#include "search/spaces/workload_spec.h"
#include "search/tuner.h"

namespace tessel::tools {

// An empty Baseline (no name) for an operator no vendor library implements. With `flush_cache`
// each sample is one call after the library's weights left the caches, as candidates measured
// with search::MeasureOptions::flush_cache.
search::Baseline measure_vendor_baseline(const search::WorkloadSpec& workload, int threads, bool flush_cache = false);

}  // namespace tessel::tools
