// The process environment a fair benchmark needs. OpenBLAS, oneDNN and OpenMP read their settings
// from environment variables once, when they load, so a benchmark fixes the variables for its
// target and re-executes itself before measuring anything: both vendor libraries held to the
// target's ISA (the host's presets cleared when the target is the host's ISA; OpenBLAS's core type
// and oneDNN's maximum ISA set when the target caps it lower, so the ratio compares like with
// like), both libraries' idle threads quick to sleep, so neither side's leftover spinning
// slows the other, and freed memory kept in the process, so libtorch's per-call buffers do not
// fault their pages in on every call. Tests never call this: they run under the environment as it is.
#pragma once
#include <nlohmann/json.hpp>

#include "target/target.h"

namespace tessel {

// Replaces this process by a fresh run of the same program (the file /proc/self/exe names) with the same
// arguments and the current environment. argv must be main's argv. Throws InternalError on failure.
[[noreturn]] void reexec_self(char** argv);

// Sets the benchmark environment for `target` (a CPU target this machine runs) and re-executes if
// that changed anything; returns otherwise (which is what the re-executed process does).
void reexec_with_benchmark_environment(char** argv, const Target& target = Target::host());

// The variables the benchmark environment sets or clears, with their values in this process (null
// when unset), for a run's manifest: {"OPENBLAS_THREAD_TIMEOUT": "4", "ONEDNN_MAX_CPU_ISA": null, ...}.
nlohmann::json benchmark_environment();

}  // namespace tessel
