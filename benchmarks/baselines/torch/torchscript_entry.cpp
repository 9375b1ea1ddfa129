// The libtorch side of TorchScript models (benchmarks/baselines/torchscript_model.h), built into
// libtessel_torch.so and found there by symbol.
#include <ATen/Parallel.h>
#include <torch/script.h>

#include <cstring>

#include "benchmarks/baselines/torchscript_model.h"
#include "support/error.h"

namespace {

// The libtorch element type of a model input: float32 images, int64 or int32 token ids.
torch::ScalarType torch_dtype(tessel::ElementType t) {
  if (t == tessel::ElementType::of<float>()) return torch::kFloat32;
  if (t == tessel::ElementType::of<int64_t>()) return torch::kInt64;
  if (t == tessel::ElementType::of<int32_t>()) return torch::kInt32;
  tessel::user_error("TorchScript models here take float32, int64 or int32 input, not ", t.str());
}

class LibtorchModel : public tessel::TorchScriptModel {
 public:
  explicit LibtorchModel(torch::jit::Module module) : module_(std::move(module)) {}

  tessel::NDArray forward(const tessel::NDArray& input) override {
    torch::ScalarType dtype = torch_dtype(input.dtype());
    torch::InferenceMode inference;
    torch::Tensor x = torch::from_blob(const_cast<void*>(input.data()), input.shape(), dtype);
    torch::jit::IValue result = module_.forward({x});
    torch::Tensor y = (result.isTuple() ? result.toTuple()->elements()[0] : result).toTensor().contiguous();
    if (y.scalar_type() != torch::kFloat32) tessel::user_error("the TorchScript model's output is not float32");
    tessel::NDArray out = tessel::NDArray::empty(y.sizes().vec(), tessel::ElementType::of<float>());
    std::memcpy(out.data(), y.data_ptr<float>(), out.nbytes());
    return out;
  }

 private:
  torch::jit::Module module_;
};

// The module in eval mode, prepared as `mode` says (tessel::LibtorchMode).
torch::jit::Module prepared(torch::jit::Module module, int mode) {
  module.eval();
  if (mode == static_cast<int>(tessel::LibtorchMode::Frozen)) return torch::jit::freeze(module);
  if (mode == static_cast<int>(tessel::LibtorchMode::Optimized)) return torch::jit::optimize_for_inference(module);
  return module;
}

}  // namespace

extern "C" tessel::TorchScriptModel* tessel_load_torchscript(const char* path, int threads, int mode) {
  at::set_num_threads(threads);
  torch::jit::Module module;
  try {
    module = torch::jit::load(path);
  } catch (const c10::Error& e) {
    tessel::user_error("cannot load the TorchScript model '", path, "': ", e.what_without_backtrace());
  }
  try {
    return new LibtorchModel(prepared(std::move(module), mode));
  } catch (const c10::Error& e) {
    const char* preparation[] = {"in eval mode", "frozen", "optimized for inference"};
    tessel::user_error("libtorch cannot prepare the TorchScript model '", path, "' ", preparation[mode], ": ",
                       e.what_without_backtrace());
  }
}
