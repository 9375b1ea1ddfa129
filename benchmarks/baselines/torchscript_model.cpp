// Loading TorchScript models through libtessel_torch.so (benchmarks/baselines/torchscript_model.h).
#include "benchmarks/baselines/torchscript_model.h"

#include "benchmarks/baselines/environment_variable.h"
#include "support/torch_library.h"

namespace tessel {

std::unique_ptr<TorchScriptModel> load_torchscript(const std::string& path, int threads) {
  using Load = TorchScriptModel* (*)(const char*, int);
  return std::unique_ptr<TorchScriptModel>(torch_library().function<Load>("tessel_load_torchscript")(path.c_str(), threads));
}

bool set_libtorch_capability_for(const Target& target) {
  CpuIsa isa = target.cpu().isa;
  const char* capability = isa >= host_cpu().isa ? nullptr : isa == CpuIsa::AVX2 ? "avx2" : "default";
  return set_environment_variable("ATEN_CPU_CAPABILITY", capability);
}

}  // namespace tessel
