// Loading TorchScript models through libtessel_torch.so (benchmarks/baselines/torchscript_model.h).
#include "benchmarks/baselines/torchscript_model.h"

#include "support/torch_library.h"

namespace tessel {

std::unique_ptr<TorchScriptModel> load_torchscript(const std::string& path, int threads) {
  using Load = TorchScriptModel* (*)(const char*, int);
  return std::unique_ptr<TorchScriptModel>(torch_library().function<Load>("tessel_load_torchscript")(path.c_str(), threads));
}

}  // namespace tessel
