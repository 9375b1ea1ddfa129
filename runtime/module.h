// Modules: compiled kernels plus the metadata that says how to call them (names, argument dtypes
// and shapes, the target). A back end builds a Module (backends/backend.h); the runtime loads an
// exported one without LLVM or the compiler, from libtessel_runtime.so alone.
//
//   Module module = load_module("out/kernels.so");
//   Kernel gemm = module.function("gemm");
//   gemm.run({&a, &b, &c});                 // checked: count, shapes, dtypes, devices
//   gemm.call(pointers);                    // the hot path: void* per argument, unchecked
//
// An exported module is one ELF shared library. Its functions are the packed entries
// `void SYMBOL(void* const* args)` (args[i] points to argument i's first element), and its
// metadata is the NUL-terminated JSON string exported as the symbol `tessel_module_info`:
//   {"format": "tessel-module", "version": 1, "target": "llvm_cpu -isa=avx2 ...",
//    "functions": [{"name": "gemm", "symbol": "gemm_packed",
//                   "args": [{"name": "A", "dtype": "float32", "shape": [64, 64]}, ...]}]}
// Kept inside the library, the metadata cannot get separated from or out of step with the code.
// Kernels call tessel_parallel_for (runtime/thread_pool.h), resolved when the library is loaded
// into a process that links libtessel_runtime.so.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "runtime/ndarray.h"

namespace tessel {

struct ArgInfo {
  std::string name;
  ElementType dtype;
  std::vector<int64_t> shape;
};

struct FunctionInfo {
  std::string name;    // what callers ask for
  std::string symbol;  // the packed entry's symbol in the library
  std::vector<ArgInfo> args;
};

struct ModuleInfo {
  std::string target;  // the target string the code was generated for (target/target.h)
  std::vector<FunctionInfo> functions;

  const FunctionInfo* find(const std::string& name) const;  // null if absent
  std::string to_json() const;
  // Throws UserError naming `what` for text that is not module metadata of a known version.
  static ModuleInfo from_json(const std::string& text, const std::string& what);
};

// The symbol holding an exported module's metadata.
inline constexpr const char* kModuleInfoSymbol = "tessel_module_info";

using PackedEntry = void (*)(void* const* args);

// What a back end (or the loader) implements: where the code of the module's functions is, and how
// to write the module as a shared library.
class ModuleNode {
 public:
  explicit ModuleNode(ModuleInfo info) : info_(std::move(info)) {}
  virtual ~ModuleNode();
  ModuleNode(const ModuleNode&) = delete;
  ModuleNode& operator=(const ModuleNode&) = delete;

  const ModuleInfo& info() const { return info_; }
  // The packed entry of one of info().functions; must be safe to call from several threads.
  virtual PackedEntry entry(const FunctionInfo& function) const = 0;
  // Writes the module (code and metadata) as one shared library at `path`, replacing it whole.
  virtual void export_library(const std::string& path) const = 0;

 private:
  ModuleInfo info_;
};

// A callable function of a module; copies share it, and it keeps its module alive.
class Kernel {
 public:
  Kernel() = default;
  Kernel(std::shared_ptr<const ModuleNode> module, const FunctionInfo* info, PackedEntry entry)
      : module_(std::move(module)), info_(info), entry_(entry) {}

  bool defined() const { return entry_ != nullptr; }
  const FunctionInfo& info() const { return *info_; }
  // args[i] points to the first element of argument i; nothing is checked.
  void call(void* const* args) const { entry_(args); }
  // Throws UserError unless there is one array per argument, each with the argument's shape and
  // element type, in host memory; then call()s with their data.
  void run(const std::vector<NDArray*>& args) const;

 private:
  std::shared_ptr<const ModuleNode> module_;
  const FunctionInfo* info_ = nullptr;
  PackedEntry entry_ = nullptr;
};

// A shared handle to a module.
class Module {
 public:
  Module() = default;
  explicit Module(std::shared_ptr<ModuleNode> node) : node_(std::move(node)) {}

  bool defined() const { return node_ != nullptr; }
  const ModuleInfo& info() const { return node_->info(); }
  // Throws UserError listing the module's functions if there is none named `name`.
  Kernel function(const std::string& name) const;
  void export_library(const std::string& path) const { node_->export_library(path); }

 private:
  std::shared_ptr<ModuleNode> node_;
};

// Loads an exported module (dlopen). Throws UserError naming the path for a file that does not
// exist, does not load, or is not a Tessel module.
Module load_module(const std::string& path);

}  // namespace tessel
