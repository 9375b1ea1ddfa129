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
  return set_environment_variable("ATEN_CPU_CAPABILITY", isa_cap(target, "avx2", "default"));
}

}  // namespace tessel
