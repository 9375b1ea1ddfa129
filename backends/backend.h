// The interface every code generator implements. A Backend builds a Module (runtime/module.h): one
// or more functions, each given as a lowered function or as a scheduled tensor expression
// (backends/build_input.h), compiled for a target (target/target.h) whose kind is the back end's
// name, together with their metadata. A module runs in this process and exports as one shared
// library that a program linking only libtessel_runtime.so loads (load_module). compile() is the
// shortcut for one lowered function. Back ends register themselves by name in the plugin registry
// (support/registry.h); create_backend makes the one a target names.
//
// What a back end compiles is the lowered IR of passes/lower/lower.h, with the values of
// ir/scalar_semantics.h: wrapping integers (index arithmetic, which never overflows, may be
// marked so), floor Div/Mod with x / -1 wrapping (division by zero undefined), float Min/Max as
// `a < b ? a : b` / `a > b ? a : b` (a NaN operand gives b; llvm_cpu: fcmp olt/ogt + select,
// c_source: the same conditional expression), float Mod as fma(-floor(a / b), b, a). It lowers
// the intrinsics (ir/intrinsic.h) and attributes (ir/attr.h) it knows, skips attributes that are
// hints, and refuses the rest, bound loops and memory scopes it cannot allocate with a UserError
// (the CPU back ends word these refusals once, in backends/cpu_contract.h).
//
//   std::unique_ptr<Backend> backend = create_backend(Target::parse("llvm_cpu -isa=avx2"));
//   Module module = backend->build({gemm_func, relu_func});
//   module.function("gemm").run({&a, &b, &c});
//   module.export_library("kernels.so");                 // load_module("kernels.so") elsewhere
//
//   std::unique_ptr<CompiledFunction> kernel = backend->compile(lowered);
//   void* args[] = {a.data(), b.data(), c.data()};      // LoweredFunc::args order
//   kernel->call(args);
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/build_input.h"
#include "ir/stmt.h"
#include "runtime/module.h"
#include "runtime/ndarray.h"
#include "target/target.h"

namespace tessel {

// A compiled kernel together with the lowered function it came from; it keeps its module alive.
class CompiledFunction {
 public:
  CompiledFunction(LoweredFunc func, Kernel kernel) : func_(std::move(func)), kernel_(std::move(kernel)) {}

  // The hot path: args[i] points to the first element of func().args[i]'s buffer. Nothing is
  // checked; the buffers must hold the shapes func() declares.
  void call(void* const* args) const { kernel_.call(args); }

  // The checked path: throws UserError unless there is one array per argument, each with the
  // argument's shape and element type; then call()s with their data.
  void run(const std::vector<NDArray*>& args) const { kernel_.run(args); }

  // The function this kernel was compiled from (argument names, dtypes, shapes).
  const LoweredFunc& func() const { return func_; }
  const Kernel& kernel() const { return kernel_; }

 private:
  LoweredFunc func_;
  Kernel kernel_;
};

// A lowered function's metadata as modules record it; `symbol` is its packed entry.
FunctionInfo function_info(const LoweredFunc& func, std::string symbol);

class Backend {
 public:
  static constexpr const char* kPluginKind = "backend";
  virtual ~Backend();

  // The registry name, e.g. "llvm_cpu".
  virtual std::string name() const = 0;

  // Compiles the functions into one module for target(). Throws UserError for an empty list,
  // two functions of one name, or a function this back end cannot generate (or lower). The target
  // may be one this machine cannot run (cross-compilation: export, do not call). Implementations
  // must allow concurrent build() calls from several threads.
  virtual Module build(const std::vector<BuildInput>& functions) const = 0;

  // One lowered function, built alone and ready to call; throws UserError if this machine
  // cannot run the target.
  std::unique_ptr<CompiledFunction> compile(const LoweredFunc& func) const;

  // Human-readable code for inspection (`tessel ... --emit <format>`). The formats a back end
  // offers are its own ("llvm", "asm", "c", ...); the default offers none and throws UserError.
  virtual std::string emit(const LoweredFunc& func, const std::string& format) const;

  // The target code is generated for: the one create_backend gave, else the host CPU.
  Target target() const;

 protected:
  // The UserError build() throws for an empty list or repeated names.
  void check_build_inputs(const std::vector<BuildInput>& functions) const;

 private:
  friend std::unique_ptr<Backend> create_backend(const Target& target, const nlohmann::json& params);
  std::optional<Target> target_;
};

// The back end named by the target's kind, created with `params` and compiling for `target`.
// Throws UserError for a kind no back end implements.
std::unique_ptr<Backend> create_backend(const Target& target, const nlohmann::json& params = nullptr);

}  // namespace tessel
