// Helpers for the LLVM CPU back-end tests: hand-built lowered functions over 1-D buffers, and
// compiling and calling them on NDArrays.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "backends/llvm_cpu/llvm_cpu.h"
#include "ir/stmt.h"
#include "runtime/ndarray.h"

namespace tessel::test {

// A global 1-D buffer argument of n elements.
inline FuncArg vector_arg(const std::string& name, DataType dtype, int64_t n) {
  return FuncArg{Buffer(name, dtype, MemoryScope::global()), {n}};
}

inline std::unique_ptr<CompiledFunction> jit(const LoweredFunc& func, LlvmCpuOptions options = {}) {
  return LlvmCpuBackend(options).compile(func);
}

// `for (var = 0; var < extent; ++var) body`
inline Stmt loop(const Var& var, int64_t extent, Stmt body, ForKind kind = ForKind::Serial) {
  return make_for(var, make_int(0, var.type()), make_int(extent, var.type()), kind, std::move(body));
}

inline void run(const CompiledFunction& f, std::vector<NDArray>& arrays) {
  std::vector<NDArray*> args;
  for (NDArray& a : arrays) args.push_back(&a);
  f.run(args);
}

}  // namespace tessel::test
