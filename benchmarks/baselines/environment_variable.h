// Setting one environment variable and knowing whether that changed anything: how the baselines
// hold OpenBLAS and oneDNN to a benchmark's target (their settings are read once, when they load,
// so a changed environment means the benchmark must re-execute; benchmarks/bench_environment.h).
#pragma once
#include "target/target.h"

namespace tessel {

// Sets the variable to `value`, or unsets it for nullptr; true if that changed the environment.
bool set_environment_variable(const char* name, const char* value);

// What a library's ISA cap is set to for `target`: the library's name for the target's ISA (`avx2`
// or `sse4`) when that is below the host's, else nullptr (no cap: the variable unset).
const char* isa_cap(const Target& target, const char* avx2, const char* sse4);

}  // namespace tessel
