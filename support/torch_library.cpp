// Lazy loading of the libtorch plugin library (support/torch_library.h).
#include "support/torch_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>

#include "support/error.h"

namespace tessel {

namespace {

constexpr const char* kTorchLibrary = "libtessel_torch.so";
constexpr const char* kTorchTarget = "tessel_torch";
constexpr const char* kTorchPurpose = "the libtorch plugins: cost models mlp and treegru, strategy rl";

// A bare file name is looked for beside libtessel.so first, so the build tree works without
// LD_LIBRARY_PATH and an installed tree finds its own copy rather than another one on the path.
std::string resolve(const std::string& path) {
  if (path.find('/') != std::string::npos) return path;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&resolve), &info) && info.dli_fname) {
    std::filesystem::path beside = std::filesystem::path(info.dli_fname).parent_path() / path;
    if (std::filesystem::exists(beside)) return beside.string();
  }
  return path;
}

}  // namespace

LazyLibrary::LazyLibrary(std::string path, std::string purpose, std::string target)
    : path_(std::move(path)), purpose_(std::move(purpose)), target_(std::move(target)) {}

void LazyLibrary::open() {
  std::string path = resolve(path_);
  // RTLD_LOCAL: libtorch's symbols stay out of the global namespace of the process.
  handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    const char* why = dlerror();
    error_ = "cannot load " + path + " (" + purpose_ + "): " + (why ? why : "unknown error");
  }
}

void* LazyLibrary::symbol(const std::string& name) {
  std::call_once(once_, [this] { open(); });
  if (!handle_) user_error(error_, "; build the ", target_, " target (it is installed beside libtessel.so)");
  dlerror();
  void* address = dlsym(handle_, name.c_str());
  if (!address)
    user_error("no symbol ", name, " in ", resolve(path_), "; it is out of date: rebuild the ", target_, " target");
  return address;
}

LazyLibrary& torch_library() {
  const char* chosen = std::getenv("TESSEL_TORCH_LIBRARY");
  static LazyLibrary library(chosen && *chosen ? chosen : kTorchLibrary, kTorchPurpose, kTorchTarget);
  return library;
}

}  // namespace tessel
