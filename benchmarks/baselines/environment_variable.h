// Setting one environment variable and knowing whether that changed anything: how the baselines
// hold OpenBLAS and oneDNN to a benchmark's target (their settings are read once, when they load,
// so a changed environment means the benchmark must re-execute; benchmarks/bench_environment.h).
#pragma once

namespace tessel {

// Sets the variable to `value`, or unsets it for nullptr; true if that changed the environment.
bool set_environment_variable(const char* name, const char* value);

}  // namespace tessel
