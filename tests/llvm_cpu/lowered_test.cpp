// End to end through lowering: scheduled tensor expressions (GEMM with tiling, vectorization,
// unrolling and a parallel outer loop; a fused elementwise op with a non-dividing split) lowered
// by passes/lower and compiled by the LLVM CPU back end, against naive C++ and the reference
// loop-IR interpreter.
#include <catch2/catch.hpp>

#include <algorithm>

#include "ir/schedule.h"
#include "ir/tensor.h"
#include "passes/lower/loop_interpreter.h"
#include "passes/lower/lower.h"
#include "runtime/thread_pool.h"
#include "tests/llvm_cpu/llvm_test_util.h"

using namespace tessel;
using namespace tessel::test;

namespace {

// The output of func (its last argument) on `inputs`, computed by the JIT.
NDArray jit_output(const LoweredFunc& func, std::vector<NDArray> inputs) {
  inputs.push_back(NDArray::zeros(func.args.back().shape, DataType::float32()));
  run(*jit(func), inputs);
  return inputs.back();
}

// The same, computed by the reference loop-IR interpreter.
NDArray interpreter_output(const LoweredFunc& func, std::vector<NDArray> inputs) {
  inputs.push_back(NDArray::zeros(func.args.back().shape, DataType::float32()));
  std::vector<NDArray*> pointers;
  for (NDArray& a : inputs) pointers.push_back(&a);
  run_lowered(func, pointers);
  return inputs.back();
}

}  // namespace

TEST_CASE("a tiled, vectorized, parallel GEMM lowers and matches naive C++", "[llvm_cpu][lowered]") {
  const int64_t m = 64, n = 48, k_extent = 32;
  Tensor a = placeholder({m, k_extent}, DataType::float32(), "A");
  Tensor b = placeholder({k_extent, n}, DataType::float32(), "B");
  IterVar k = reduce_axis(k_extent, "k");
  Tensor c = compute({m, n}, [&](Var i, Var j) { return sum(a(i, k) * b(k, j), {k}); }, "C");
  Schedule s = create_schedule({c});
  auto [io, jo, ii, ji] = s[c].tile(s[c].axis(0), s[c].axis(1), 8, 16);
  auto [ko, ki] = s[c].split(s[c].reduce_axis(0), 4);
  s[c].reorder({io, jo, ko, ii, ki, ji});
  s[c].vectorize(ji);
  s[c].unroll(ki);
  s[c].parallel(io);
  LoweredFunc func = lower(s, {a, b, c}, "lowered_gemm");

  NDArray av = NDArray::random_uniform({m, k_extent}, DataType::float32(), 31);
  NDArray bv = NDArray::random_uniform({k_extent, n}, DataType::float32(), 32);
  NDArray expected = NDArray::zeros({m, n}, DataType::float32());
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t kk = 0; kk < k_extent; ++kk)
        expected.data_as<float>()[i * n + j] += av.data_as<float>()[i * k_extent + kk] * bv.data_as<float>()[kk * n + j];
  int saved = num_threads();
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    CHECK(max_abs_diff(jit_output(func, {av, bv}), expected) < 1e-4);
  }
  CHECK(max_abs_diff(jit_output(func, {av, bv}), interpreter_output(func, {av, bv})) < 1e-4);
  set_num_threads(saved);
}

TEST_CASE("a fused elementwise op with a non-dividing split lowers and matches naive C++", "[llvm_cpu][lowered]") {
  const int64_t rows = 7, cols = 37;  // 37 is not a multiple of the vector width
  Tensor x = placeholder({rows, cols}, DataType::float32(), "X");
  Tensor bias = placeholder({cols}, DataType::float32(), "bias");
  Tensor y = compute({rows, cols}, [&](Var i, Var j) { return max(x(i, j) + bias(j), make_float(0.0)); }, "Y");
  Schedule s = create_schedule({y});
  IterVar fused = s[y].fuse(s[y].axis(0), s[y].axis(1));
  auto [outer, inner] = s[y].split(fused, 16);
  s[y].vectorize(inner);
  s[y].parallel(outer);
  LoweredFunc func = lower(s, {x, bias, y}, "lowered_bias_relu");

  NDArray xv = NDArray::random_uniform({rows, cols}, DataType::float32(), 41);
  NDArray bv = NDArray::random_uniform({cols}, DataType::float32(), 42);
  NDArray expected = NDArray::zeros({rows, cols}, DataType::float32());
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      expected.data_as<float>()[i * cols + j] = std::max(xv.data_as<float>()[i * cols + j] + bv.data_as<float>()[j], 0.0f);
  CHECK(max_abs_diff(jit_output(func, {xv, bv}), expected) == 0.0);
  CHECK(max_abs_diff(jit_output(func, {xv, bv}), interpreter_output(func, {xv, bv})) == 0.0);
}
