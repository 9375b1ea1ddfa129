// The benchmark environment and the re-execution that applies it: see bench_environment.h.
#include "benchmarks/bench_environment.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "benchmarks/baselines/onednn.h"
#include "benchmarks/baselines/openblas.h"
#include "benchmarks/baselines/torchscript_model.h"
#include "support/error.h"

namespace tessel {

void reexec_self(char** argv) {
  // The resolved path, not /proc/self/exe itself, so the new process keeps its name in ps and top.
  std::error_code error;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) self = "/proc/self/exe";
  execv(self.c_str(), argv);
  throw InternalError("cannot re-execute " + self.string() + ": " + std::strerror(errno));
}

nlohmann::json benchmark_environment() {
  nlohmann::json out = nlohmann::json::object();
  for (const char* name : {"OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_THREAD_TIMEOUT", "ONEDNN_MAX_CPU_ISA",
                           "DNNL_MAX_CPU_ISA", "ATEN_CPU_CAPABILITY", "GOMP_SPINCOUNT", "OMP_WAIT_POLICY",
                           "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"}) {
    const char* value = std::getenv(name);
    out[name] = value ? nlohmann::json(value) : nlohmann::json(nullptr);
  }
  return out;
}

void reexec_with_benchmark_environment(char** argv, const Target& target) {
  bool changed = set_openblas_presets_for(target);
  changed |= set_onednn_max_isa_for(target);
  changed |= set_libtorch_capability_for(target);
  changed |= stop_openblas_idle_spinning();
  changed |= limit_openmp_spin_wait();
  changed |= keep_freed_memory_in_process();
  if (changed) reexec_self(argv);
}

}  // namespace tessel
