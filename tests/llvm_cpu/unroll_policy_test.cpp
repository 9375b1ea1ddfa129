// LLVM's partial unrolling is the same for every CPU model (backends/llvm_cpu/cpu_target.cpp), so
// a schedule's loop nest compiles to the same loops on every CPU of an ISA.
#include <catch2/catch.hpp>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "backends/llvm_cpu/codegen.h"
#include "backends/llvm_cpu/cpu_target.h"
#include "backends/llvm_cpu/optimize.h"
#include "ir/tensor.h"
#include "tests/llvm_cpu/llvm_test_util.h"

using namespace tessel;
using namespace tessel::test;

namespace {

// out[i*32 + j] += a[i*32 + j] * b[j] over 64 x 32: the inner loop becomes a few vector operations;
// how often the outer one is partially unrolled is LLVM's choice.
LoweredFunc loop_nest() {
  const int64_t rows = 64, cols = 32;
  FuncArg a = vector_arg("a", DataType::float32(), rows * cols), b = vector_arg("b", DataType::float32(), cols);
  FuncArg out = vector_arg("out", DataType::float32(), rows * cols);
  Var i("i"), j("j");
  Expr at = i * Expr(cols) + j;
  Stmt update = make_store(out.buffer, at, load(out.buffer, at) + load(a.buffer, at) * load(b.buffer, j));
  return LoweredFunc{"nest", {a, b, out}, loop(i, rows, loop(j, cols, update))};
}

// The optimized LLVM IR of loop_nest() for the host's features under another CPU model.
std::string optimized_for(const std::string& cpu) {
  llvm_cpu::CodegenOptions options;
  options.target = llvm_cpu::llvm_target_for(Target::parse("llvm_cpu -isa=avx2"));
  options.target.cpu = cpu;
  auto machine = llvm_cpu::create_target_machine(options.target, false);
  llvm::LLVMContext context;
  auto module = llvm_cpu::generate_module(loop_nest(), context, machine->createDataLayout(), options);
  llvm_cpu::optimize_module(*module, *machine, 3);
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, nullptr);
  return os.str();
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("a loop nest unrolls the same for every CPU model", "[llvm_cpu][unroll]") {
  // By their loop buffers LLVM would unroll the outer loop 16 times more for znver3.
  std::string znver3 = optimized_for("znver3"), icelake = optimized_for("icelake-server");
  INFO("znver3:\n" << znver3 << "\nicelake-server:\n" << icelake);
  CHECK(count(znver3, "fmul") > 0);
  CHECK(count(znver3, "fmul") == count(icelake, "fmul"));
  CHECK(count(znver3, "br ") == count(icelake, "br "));
}
