// The OpenBLAS baseline for GEMM: cblas_sgemm on row-major matrices, OpenBLAS's own best case.
//
// OpenBLAS picks its kernels when the library loads, from OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE if
// they are set; these machines preset them to Haswell (AVX2), which makes OpenBLAS 1.5–2× slower
// than it is here (see docs/workloads.md). A benchmark therefore re-executes itself without them before
// it measures anything, and reports the kernel OpenBLAS chose.
#pragma once
#include <string>

#include "benchmarks/baselines/prepared_kernel.h"
#include "datasets/workloads.h"

namespace tessel {

// C = A·B with A row-major M×K and B row-major K×N (copied); the output is row-major M×N.
PreparedKernel prepare_openblas_gemm(const GemmShape& shape, const float* a, const float* b, int threads);

// The kernel family OpenBLAS chose at load time, e.g. "SkylakeX" or "Haswell".
std::string openblas_corename();

// Unsets OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE; true if either was set. Takes effect only in a
// process started afterwards (see benchmarks/bench_environment.h).
bool clear_openblas_presets();

// Makes OpenBLAS's idle worker threads sleep at once (OPENBLAS_THREAD_TIMEOUT=4, unless the user
// chose a timeout) instead of spinning on sched_yield for ~0.1 s after every call, which slowed the
// other side of a comparison, run right after, by up to 1.8× here; OpenBLAS's own speed is
// unchanged. True if the environment changed; read when the library loads, like the presets.
bool stop_openblas_idle_spinning();

}  // namespace tessel
