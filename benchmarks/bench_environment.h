// The process environment a fair benchmark needs. OpenBLAS and OpenMP read their settings from
// environment variables once, when they load, so a benchmark fixes the variables and re-executes
// itself before measuring anything: OpenBLAS without the machine's Haswell presets, and both
// libraries' idle threads quick to sleep, so neither side's leftover spinning slows the other.
// Tests never call this: they run under the environment as it is.
#pragma once

namespace tessel {

// Replaces this process by a fresh run of the same program (the file /proc/self/exe names) with the same
// arguments and the current environment. argv must be main's argv. Throws InternalError on failure.
[[noreturn]] void reexec_self(char** argv);

// Sets the benchmark environment and re-executes if that changed anything; returns otherwise
// (which is what the re-executed process does).
void reexec_with_benchmark_environment(char** argv);

}  // namespace tessel
