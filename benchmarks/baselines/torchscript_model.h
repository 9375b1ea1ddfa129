// A TorchScript model (the `.pt` files of datasets/models/) run by libtorch: the baseline of
// `tessel bench-model`. libtorch lives in libtessel_torch.so, opened on first use
// (support/torch_library.h), so nothing else pays for loading it.
//
//   std::unique_ptr<TorchScriptModel> torch = load_torchscript("build/models/resnet18.pt", 2);
//   NDArray y = torch->forward(x);
#pragma once
#include <memory>
#include <string>

#include "runtime/ndarray.h"
#include "target/target.h"

namespace tessel {

class TorchScriptModel {
 public:
  virtual ~TorchScriptModel() = default;
  // The model's first output on one float32 input, in inference mode (no gradients).
  virtual NDArray forward(const NDArray& input) = 0;
};

// Loads the TorchScript file at `path`, libtorch using `threads` threads; UserError naming the file
// when it is missing or not TorchScript, or when libtessel_torch.so cannot be loaded.
std::unique_ptr<TorchScriptModel> load_torchscript(const std::string& path, int threads);

// Holds libtorch's own vectorized kernels (ATen's) to the target's ISA: ATEN_CPU_CAPABILITY set to
// "avx2" or "default" when the target is below the host's ISA, else unset. Its convolutions run in
// oneDNN, which set_onednn_max_isa_for holds, and its matrix products in OpenBLAS. True if the
// environment changed; ATen reads it at its first dispatch (see benchmarks/bench_environment.h).
bool set_libtorch_capability_for(const Target& target);

}  // namespace tessel
