// Lazy loading of libtessel_torch.so, the library that holds every libtorch component (the mlp and
// treegru cost models, the rl search strategy).
//
// Debian's libtorch pulls in ~290 shared libraries whose initializers cost a process about a second
// at start-up, so libtessel.so does not link it: the libtorch plugins register from libtessel (they
// are listed and their parameters checked without libtorch) and their factories fetch the real
// constructor from libtessel_torch.so the first time one is created:
//
//   using Factory = CostModel* (*)(const char*, const NeuralModelOptions*);
//   auto create = torch_library().function<Factory>("tessel_create_neural_cost_model");
//
// The library is looked for beside libtessel.so (build and install trees alike), then on the
// loader's search path; the environment variable TESSEL_TORCH_LIBRARY, if set, names it instead.
#pragma once
#include <mutex>
#include <string>

namespace tessel {

// A shared library opened on the first symbol lookup and never closed (objects it created may
// outlive any caller). Thread-safe; a failed load is remembered and reported on every lookup.
class LazyLibrary {
 public:
  // `path`: a file name (looked up beside libtessel.so, then on the loader path) or a path with a
  // '/'. `purpose` (what needs it) and `target` (the build target that produces it) go into the
  // error message.
  LazyLibrary(std::string path, std::string purpose, std::string target);

  // The address of `symbol`; throws UserError saying what failed and which target to build.
  void* symbol(const std::string& symbol);

  template <typename Function>
  Function function(const std::string& name) {
    return reinterpret_cast<Function>(symbol(name));
  }

 private:
  void open();

  std::string path_, purpose_, target_;
  std::once_flag once_;
  void* handle_ = nullptr;
  std::string error_;
};

// libtessel_torch.so (or $TESSEL_TORCH_LIBRARY), shared by every libtorch plugin.
LazyLibrary& torch_library();

}  // namespace tessel
