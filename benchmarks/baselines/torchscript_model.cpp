// Loading TorchScript models through libtessel_torch.so (benchmarks/baselines/torchscript_model.h).
#include "benchmarks/baselines/torchscript_model.h"

#include <cstdlib>

#include "benchmarks/baselines/environment_variable.h"
#include "support/error.h"
#include "support/timing.h"
#include "support/torch_library.h"

namespace tessel {

const char* libtorch_mode_name(LibtorchMode mode) {
  switch (mode) {
    case LibtorchMode::AsLoaded: return "as_loaded";
    case LibtorchMode::Frozen: return "frozen";
    case LibtorchMode::Optimized: return "optimized";
  }
  return "unknown";
}

std::unique_ptr<TorchScriptModel> load_torchscript(const std::string& path, int threads, LibtorchMode mode) {
  using Load = TorchScriptModel* (*)(const char*, int, int);
  auto load = torch_library().function<Load>("tessel_load_torchscript");
  return std::unique_ptr<TorchScriptModel>(load(path.c_str(), threads, static_cast<int>(mode)));
}

FastestTorchScript load_fastest_torchscript(const std::string& path, int threads, const NDArray& input, int trials) {
  FastestTorchScript fastest;
  double best_us = 0;
  for (LibtorchMode mode : kLibtorchModes) {
    std::unique_ptr<TorchScriptModel> model;
    try {
      model = load_torchscript(path, threads, mode);
    } catch (const UserError&) {
      if (mode == LibtorchMode::AsLoaded) throw;  // not a model libtorch can run at all
      continue;
    }
    // The warm-up calls let TorchScript's profiling executor specialize the graph first.
    double median = measure([&] { model->forward(input); }, 3, trials).median_us;
    fastest.trial_us.push_back({mode, median});
    if (!fastest.model || median < best_us) fastest.model = std::move(model), fastest.mode = mode, best_us = median;
  }
  return fastest;
}

bool set_libtorch_capability_for(const Target& target) {
  return set_environment_variable("ATEN_CPU_CAPABILITY", isa_cap(target, "avx2", "default"));
}

bool keep_freed_memory_in_process() {
  if (std::getenv("MALLOC_MMAP_THRESHOLD_") || std::getenv("MALLOC_TRIM_THRESHOLD_")) return false;
  // glibc refuses an mmap threshold above half its largest heap (32 MiB on 64-bit machines).
  setenv("MALLOC_MMAP_THRESHOLD_", "33554432", 1);
  setenv("MALLOC_TRIM_THRESHOLD_", "4294967296", 1);
  return true;
}

}  // namespace tessel
