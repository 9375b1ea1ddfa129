// The interface every code generator implements. A Backend compiles a LoweredFunc (the flattened
// loop IR of ir/stmt.h) into a CompiledFunction, a callable kernel, for a target (target/target.h)
// whose kind is the back end's name. Back ends register themselves by name in the plugin registry
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
//   std::unique_ptr<CompiledFunction> kernel = backend->compile(lowered);
//   void* args[] = {a.data(), b.data(), c.data()};   // LoweredFunc::args order
//   kernel->call(args);
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/stmt.h"
#include "runtime/ndarray.h"
#include "target/target.h"

namespace tessel {

// A compiled kernel. It keeps whatever owns the machine code (a JIT, a loaded library) alive.
class CompiledFunction {
 public:
  explicit CompiledFunction(LoweredFunc func) : func_(std::move(func)) {}
  virtual ~CompiledFunction();
  CompiledFunction(const CompiledFunction&) = delete;
  CompiledFunction& operator=(const CompiledFunction&) = delete;

  // The hot path: args[i] points to the first element of func().args[i]'s buffer. Nothing is
  // checked; the buffers must hold the shapes func() declares.
  virtual void call(void* const* args) const = 0;

  // The checked path: throws UserError unless there is one array per argument, each with the
  // argument's shape and element type; then call()s with their data.
  void run(const std::vector<NDArray*>& args) const;

  // The function this kernel was compiled from (argument names, dtypes, shapes).
  const LoweredFunc& func() const { return func_; }

 private:
  LoweredFunc func_;
};

class Backend {
 public:
  static constexpr const char* kPluginKind = "backend";
  virtual ~Backend();

  // The registry name, e.g. "llvm_cpu".
  virtual std::string name() const = 0;

  // Compiles one function; throws UserError if the function uses something this back end
  // cannot generate. Implementations must allow concurrent compile() calls from several threads.
  virtual std::unique_ptr<CompiledFunction> compile(const LoweredFunc& func) const = 0;

  // Human-readable code for inspection (`tessel ... --emit <format>`). The formats a back end
  // offers are its own ("llvm", "asm", "c", ...); the default offers none and throws UserError.
  virtual std::string emit(const LoweredFunc& func, const std::string& format) const;

  // The target code is generated for: the one create_backend gave, else the host CPU.
  Target target() const;

 private:
  friend std::unique_ptr<Backend> create_backend(const Target& target, const nlohmann::json& params);
  std::optional<Target> target_;
};

// The back end named by the target's kind, created with `params` and compiling for `target`.
// Throws UserError for a kind no back end implements.
std::unique_ptr<Backend> create_backend(const Target& target, const nlohmann::json& params = nullptr);

}  // namespace tessel
