// A TorchScript model (the `.pt` files of datasets/models/) run by libtorch: the baseline of
// `tessel bench-model`. libtorch lives in libtessel_torch.so, opened on first use
// (support/torch_library.h), so nothing else pays for loading it.
//
// A baseline is only as honest as its configuration: a traced module as loaded runs each
// convolution on weights in PyTorch's own layout, and PyTorch's inference path prepares it first
// (torch.jit.freeze, torch.jit.optimize_for_inference). On Zen 5 (one AVX-512 thread) the latter
// ran MobileNet-V2 2.1x and ResNet-18 1.4x faster than the module as loaded, while on a single
// conv+bn+relu layer the three ran within 30% of each other, frozen first. So the benchmark tries
// each and keeps the fastest (load_fastest_torchscript).
//
//   FastestTorchScript torch = load_fastest_torchscript("build/models/resnet18.pt", 2, x);
//   NDArray y = torch.model->forward(x);
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/ndarray.h"
#include "target/target.h"

namespace tessel {

class TorchScriptModel {
 public:
  virtual ~TorchScriptModel() = default;
  // The model's first output on one float32 input, in inference mode (no gradients).
  virtual NDArray forward(const NDArray& input) = 0;
};

// How libtorch prepares the module before running it (always in eval mode): as loaded; frozen
// (torch::jit::freeze: parameters become constants, batch norms fold into convolutions); or
// optimized for inference (torch::jit::optimize_for_inference: frozen, then weights prepacked for
// oneDNN and operators fused).
enum class LibtorchMode { AsLoaded, Frozen, Optimized };
constexpr LibtorchMode kLibtorchModes[] = {LibtorchMode::AsLoaded, LibtorchMode::Frozen, LibtorchMode::Optimized};
const char* libtorch_mode_name(LibtorchMode mode);  // "as_loaded", "frozen", "optimized"

// Loads the TorchScript file at `path`, libtorch using `threads` threads, prepared as `mode` says;
// UserError naming the file when it is missing or not TorchScript, when libtorch cannot prepare it,
// or when libtessel_torch.so cannot be loaded.
std::unique_ptr<TorchScriptModel> load_torchscript(const std::string& path, int threads,
                                                   LibtorchMode mode = LibtorchMode::AsLoaded);

struct FastestTorchScript {
  std::unique_ptr<TorchScriptModel> model;
  LibtorchMode mode = LibtorchMode::AsLoaded;
  std::vector<std::pair<LibtorchMode, double>> trial_us;  // each mode's median time a call in the trial
};

// The module in the mode that runs `input` fastest: each mode loaded in turn, warmed up and timed
// (the median of `trials` calls); a mode libtorch cannot prepare the model in is left out. UserError
// as load_torchscript when the module cannot be loaded.
FastestTorchScript load_fastest_torchscript(const std::string& path, int threads, const NDArray& input,
                                            int trials = 10);

// Holds libtorch's own vectorized kernels (ATen's) to the target's ISA: ATEN_CPU_CAPABILITY set to
// "avx2" or "default" when the target is below the host's ISA, else unset. Its convolutions run in
// oneDNN, which set_onednn_max_isa_for holds, and its matrix products in OpenBLAS. True if the
// environment changed; ATen reads it at its first dispatch (see benchmarks/bench_environment.h).
bool set_libtorch_capability_for(const Target& target);

// libtorch allocates its intermediate tensors on every call. Under glibc's defaults a buffer above
// the mmap threshold is mapped and unmapped each call and the heap's free top goes back to the
// system, so each call faults its pages in again: on a Zen 5 VM a conv+bn+relu layer
// (conv_bn_relu_C3, optimized) took 6.8 ms a call in bench-model that way, 0.36 without. A
// deployment keeps its memory (PyTorch's own CPU caching allocator does, as do jemalloc and
// tcmalloc), so the benchmark environment holds glibc to it: buffers up to 32 MiB from the heap
// (MALLOC_MMAP_THRESHOLD_) and the heap never trimmed (MALLOC_TRIM_THRESHOLD_). Tessel's executor
// allocates nothing per call. Leaves either variable a user set alone; true if the environment changed.
bool keep_freed_memory_in_process();

}  // namespace tessel
