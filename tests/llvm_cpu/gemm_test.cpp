// A hand-lowered, register-tiled, vectorized and parallel GEMM (the shape of loop nest lowering
// produces for a tuned matmul schedule) against a naive C++ reference, and concurrent compilation
// of kernels from several threads.
#include <catch2/catch.hpp>

#include <thread>

#include "runtime/thread_pool.h"
#include "tests/llvm_cpu/llvm_test_util.h"

using namespace tessel;
using namespace tessel::test;

namespace {

constexpr int kLanes = 16, kRows = 8, kVecs = 2;  // an 8 x 32 register tile of C

// C[n, n] = A[n, n] . B[n, n]: parallel over row tiles; a local accumulator tile per (row tile,
// column tile), updated by broadcast(A) * vector(B) for each k.
LoweredFunc tiled_gemm(int64_t n) {
  FuncArg a = FuncArg{Buffer("A", DataType::float32(), MemoryScope::global()), {n, n}};
  FuncArg b = FuncArg{Buffer("B", DataType::float32(), MemoryScope::global()), {n, n}};
  FuncArg c = FuncArg{Buffer("C", DataType::float32(), MemoryScope::global()), {n, n}};
  Buffer acc("acc", DataType::float32(), MemoryScope::local());
  Var io("io"), jo("jo"), k("k"), ii("ii"), jv("jv");
  const int tile_cols = kLanes * kVecs;
  Expr acc_index = ramp(Expr(ii) * tile_cols + Expr(jv) * kLanes, 1, kLanes);
  Expr row = Expr(io) * kRows + ii;
  Expr col = Expr(jo) * tile_cols + Expr(jv) * kLanes;
  auto over_tile = [&](Stmt s) { return loop(ii, kRows, loop(jv, kVecs, s, ForKind::Unrolled), ForKind::Unrolled); };

  Stmt zero = over_tile(make_store(acc, acc_index, broadcast(make_float(0.0), kLanes)));
  Expr update = load(acc, acc_index) + broadcast(load(a.buffer, row * make_int(n) + k), kLanes) *
                                           load(b.buffer, ramp(Expr(k) * make_int(n) + col, 1, kLanes));
  Stmt reduce = loop(k, n, over_tile(make_store(acc, acc_index, update)));
  Stmt write = over_tile(make_store(c.buffer, ramp(row * make_int(n) + col, 1, kLanes), load(acc, acc_index)));
  Stmt tile = make_allocate(acc, make_int(kRows * tile_cols), make_seq({zero, reduce, write}));
  Stmt body = loop(io, n / kRows, loop(jo, n / tile_cols, tile), ForKind::Parallel);
  return LoweredFunc{"tiled_gemm", {a, b, c}, body};
}

NDArray naive_gemm(const NDArray& a, const NDArray& b, int64_t n) {
  NDArray c = NDArray::zeros({n, n}, DataType::float32());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t k = 0; k < n; ++k) sum += double(a.data_as<float>()[i * n + k]) * b.data_as<float>()[k * n + j];
      c.data_as<float>()[i * n + j] = static_cast<float>(sum);
    }
  return c;
}

}  // namespace

TEST_CASE("a tiled, vectorized, parallel GEMM matches a naive reference", "[llvm_cpu][gemm][parallel]") {
  const int64_t n = 128;
  auto f = jit(tiled_gemm(n));
  NDArray a = NDArray::random_uniform({n, n}, DataType::float32(), 21);
  NDArray b = NDArray::random_uniform({n, n}, DataType::float32(), 22);
  NDArray expected = naive_gemm(a, b, n);
  int saved = num_threads();
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    std::vector<NDArray> arrays = {a, b, NDArray::zeros({n, n}, DataType::float32())};
    run(*f, arrays);
    CHECK(max_abs_diff(arrays[2], expected) < 1e-3);
  }
  set_num_threads(saved);
}

TEST_CASE("kernels compile concurrently from several threads", "[llvm_cpu][threads]") {
  const int64_t n = 64;
  std::vector<std::unique_ptr<CompiledFunction>> kernels(4);
  std::vector<std::thread> compilers;
  for (int t = 0; t < 4; ++t)
    compilers.emplace_back([&, t] {
      FuncArg a = vector_arg("a", DataType::float32(), n), out = vector_arg("out", DataType::float32(), n);
      Var i("i");
      Stmt body = loop(i, n, make_store(out.buffer, i, load(a.buffer, i) * make_float(t + 1.0)), ForKind::Parallel);
      kernels[t] = jit(LoweredFunc{"scale_" + std::to_string(t), {a, out}, body});
    });
  for (auto& c : compilers) c.join();
  NDArray a = NDArray::random_uniform({n}, DataType::float32(), 8);
  for (int t = 0; t < 4; ++t) {
    std::vector<NDArray> arrays = {a, NDArray::zeros({n}, DataType::float32())};
    run(*kernels[t], arrays);
    for (int64_t k = 0; k < n; ++k) CHECK(arrays[1].data_as<float>()[k] == a.data_as<float>()[k] * (t + 1.0f));
  }
}
