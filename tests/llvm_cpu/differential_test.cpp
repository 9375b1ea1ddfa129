// Differential tests against the reference loop-IR interpreter (passes/lower/loop_interpreter.h):
// programs mixing integer floor arithmetic, lets, selects, intrinsics, gathers, local buffers and
// parallel loops must compute what the interpreter computes.
#include <catch2/catch.hpp>

#include "passes/lower/loop_interpreter.h"
#include "runtime/thread_pool.h"
#include "tests/llvm_cpu/llvm_test_util.h"

using namespace tessel;
using namespace tessel::test;

namespace {

// Runs func on copies of `inputs` plus zeroed outputs, through the JIT and through the
// interpreter, and returns the largest difference over the outputs.
double jit_vs_interpreter(const LoweredFunc& func, const std::vector<NDArray>& inputs) {
  std::vector<NDArray> by_jit, by_interpreter;
  for (size_t i = 0; i < func.args.size(); ++i) {
    NDArray a = i < inputs.size() ? inputs[i].copy() : NDArray::zeros(func.args[i].shape, func.args[i].buffer.dtype());
    by_jit.push_back(a);
    by_interpreter.push_back(a.copy());
  }
  run(*jit(func), by_jit);
  std::vector<NDArray*> pointers;
  for (NDArray& a : by_interpreter) pointers.push_back(&a);
  run_lowered(func, pointers);
  double worst = 0;
  for (size_t i = inputs.size(); i < func.args.size(); ++i) worst = std::max(worst, max_abs_diff(by_jit[i], by_interpreter[i]));
  return worst;
}

}  // namespace

TEST_CASE("integer floor arithmetic, lets, selects and intrinsics agree with the interpreter", "[llvm_cpu][differential]") {
  const int64_t n = 100;
  FuncArg a = vector_arg("a", DataType::float32(), n), out = vector_arg("out", DataType::float32(), n);
  FuncArg iout = vector_arg("iout", DataType::int32(), n);
  Var i("i"), centered("centered");
  Expr x = load(a.buffer, i);
  Expr d = Expr(i) % 5 - 2;
  Expr divisor = select(eq(d, make_int(0)), make_int(3), d);  // -2, -1, 3, 1, 2
  Expr int_part = Expr(centered) / 7 * 3 + Expr(centered) % 7 + Expr(centered) / divisor - Expr(centered) % divisor;
  Expr float_part = select(x > make_float(0.5), call("exp", {x}), call("sqrt", {x})) + call("tanh", {x - 1.0});
  Stmt body = make_let(centered, Expr(i) - 50,
                       make_seq({make_store(iout.buffer, i, int_part),
                                 make_store(out.buffer, i, cast(DataType::float32(), int_part) + float_part)}));
  LoweredFunc func{"mixed_scalar", {a, out, iout}, loop(i, n, body)};
  CHECK(jit_vs_interpreter(func, {NDArray::random_uniform({n}, DataType::float32(), 51, 0.0, 2.0)}) < 1e-4);
}

TEST_CASE("gathers, broadcasts and vector selects agree with the interpreter", "[llvm_cpu][differential]") {
  const int rows = 8, lanes = 16;
  FuncArg a = vector_arg("a", DataType::float32(), rows * lanes), s = vector_arg("s", DataType::float32(), rows);
  FuncArg out = vector_arg("out", DataType::float32(), rows * lanes);
  Var i("i");
  Expr column = load(a.buffer, ramp(Expr(i), rows, lanes));  // strided: a column of a lanes x rows matrix
  Expr scaled = column * broadcast(load(s.buffer, i), lanes);
  Expr value = select(scaled > broadcast(make_float(0.0), lanes), scaled, broadcast(make_float(0.25), lanes) * scaled);
  LoweredFunc func{"columns", {a, s, out}, loop(i, rows, make_store(out.buffer, ramp(Expr(i) * lanes, 1, lanes), value))};
  CHECK(jit_vs_interpreter(func, {NDArray::random_uniform({rows * lanes}, DataType::float32(), 52),
                                  NDArray::random_uniform({rows}, DataType::float32(), 53)}) < 1e-6);
}

TEST_CASE("parallel loops with local buffers agree with the interpreter", "[llvm_cpu][differential][parallel]") {
  const int64_t rows = 12, cols = 40;
  FuncArg a = vector_arg("a", DataType::float32(), rows * cols), out = vector_arg("out", DataType::float32(), rows * cols);
  Buffer tmp("tmp", DataType::float32(), MemoryScope::local());
  Var r("r"), j("j"), j2("j2");
  Expr base = Expr(r) * make_int(cols);
  // tmp = row of a, then out[row][j] = tmp[j] - tmp[(j + 1) % cols] (reads a neighbour's slot)
  Stmt fill = loop(j, cols, make_store(tmp, j, load(a.buffer, base + j)));
  Stmt diff = loop(j2, cols, make_store(out.buffer, base + j2, load(tmp, j2) - load(tmp, (Expr(j2) + 1) % make_int(cols))));
  Stmt body = make_allocate(tmp, make_int(cols), make_seq({fill, diff}));
  LoweredFunc func{"neighbour_diff", {a, out}, loop(r, rows, body, ForKind::Parallel)};
  set_num_threads(2);
  CHECK(jit_vs_interpreter(func, {NDArray::random_uniform({rows * cols}, DataType::float32(), 54)}) == 0.0);
}
