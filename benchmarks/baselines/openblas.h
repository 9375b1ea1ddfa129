// The OpenBLAS baseline for GEMM: cblas_sgemm on row-major matrices, OpenBLAS's own best case on the
// benchmark's target.
//
// OpenBLAS picks its kernels when the library loads, from OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE if
// they are set. Some machines preset them to Haswell (AVX2), which makes OpenBLAS 1.5–2× slower
// than it is on an AVX-512 CPU (see docs/workloads.md). A benchmark therefore sets them for its
// target before OpenBLAS loads, and re-executes itself (benchmarks/bench_environment.h): cleared
// when the target is the host's ISA, the core type of the target's ISA when the target caps it
// below the host's (Haswell for AVX2), so both sides run the same ISA. It reports the kernel family
// OpenBLAS chose.
#pragma once
#include <string>

#include "benchmarks/baselines/prepared_kernel.h"
#include "datasets/workloads.h"
#include "target/target.h"

namespace tessel {

// C = A·B with A row-major M×K and B row-major K×N (copied); the output is row-major M×N.
PreparedKernel prepare_openblas_gemm(const GemmShape& shape, const float* a, const float* b, int threads);

// The kernel family OpenBLAS chose at load time, e.g. "SkylakeX", "Haswell" or "Zen".
std::string openblas_corename();

// Holds OpenBLAS to the target's ISA: OPENBLAS_CORETYPE set to the core type of an ISA below the
// host's (Nehalem for sse4, Haswell for avx2) with OPENBLAS_L2_SIZE unset, or both unset when the
// target has the host's ISA. True if the environment changed. Takes effect only in a process
// started afterwards (see benchmarks/bench_environment.h).
bool set_openblas_presets_for(const Target& target);

// Makes OpenBLAS's idle worker threads sleep at once (OPENBLAS_THREAD_TIMEOUT=4, unless the user
// chose a timeout) instead of spinning on sched_yield for ~0.1 s after every call, which slowed the
// other side of a comparison, run right after, by up to 1.8× here; OpenBLAS's own speed is
// unchanged. True if the environment changed; read when the library loads, like the presets.
bool stop_openblas_idle_spinning();

}  // namespace tessel
