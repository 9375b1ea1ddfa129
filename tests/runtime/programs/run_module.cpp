// A program that links libtessel_runtime.so and nothing else of Tessel: it loads an exported module
// and runs each of its functions, all computing out[i] = a[i] * 3 + 1 over float32[n], on an input
// it hands over as a DLPack tensor, and checks the results. It also checks that neither LLVM nor
// libtessel.so was loaded into it. tests/runtime/module_test.cpp exports the modules and runs it.
// Usage: run_module <module.so>; prints "ok <functions>" and exits 0, or names the failure, exit 1.
#include <link.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/dlpack.h"
#include "runtime/module.h"

using namespace tessel;

namespace {

int check_loaded_libraries(dl_phdr_info* info, size_t, void* found) {
  std::string name = info->dlpi_name ? info->dlpi_name : "";
  if (name.find("libLLVM") != std::string::npos || name.find("/libtessel.so") != std::string::npos)
    *static_cast<std::string*>(found) = name;
  return 0;
}

// A managed tensor the way another framework would hand one over: its own allocation and deleter.
DLManagedTensor* foreign_tensor(int64_t n) {
  struct Owned {
    DLManagedTensor managed{};
    int64_t shape[1];
    std::vector<float> data;
  };
  auto* owned = new Owned{{}, {n}, std::vector<float>(static_cast<size_t>(n))};
  for (int64_t i = 0; i < n; ++i) owned->data[i] = static_cast<float>(i) * 0.25f - 3.0f;
  owned->managed.dl_tensor = DLTensor{owned->data.data(), {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, owned->shape, nullptr, 0};
  owned->managed.manager_ctx = owned;
  owned->managed.deleter = [](DLManagedTensor* self) { delete static_cast<Owned*>(self->manager_ctx); };
  return &owned->managed;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: run_module <module.so>\n");
    return 2;
  }
  try {
    Module module = load_module(argv[1]);
    std::string names;
    for (const FunctionInfo& f : module.info().functions) {
      int64_t n = f.args.at(0).shape.at(0);
      NDArray a = from_dlpack(foreign_tensor(n));
      NDArray out = NDArray::zeros({n}, ElementType::of<float>());
      module.function(f.name).run({&a, &out});
      for (int64_t i = 0; i < n; ++i) {
        float want = a.data_as<float>()[i] * 3 + 1;
        if (std::fabs(out.data_as<float>()[i] - want) > 1e-5f) {
          std::printf("%s: out[%ld] = %g, want %g\n", f.name.c_str(), static_cast<long>(i), out.data_as<float>()[i], want);
          return 1;
        }
      }
      names += " " + f.name;
    }
    std::string forbidden;
    dl_iterate_phdr(check_loaded_libraries, &forbidden);
    if (!forbidden.empty()) {
      std::printf("a runtime-only program loaded %s\n", forbidden.c_str());
      return 1;
    }
    std::printf("ok%s\n", names.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
}
