// Parallel loops: outlined bodies write disjoint slices (every element exactly once, with 1 and 2
// threads), capture outer loop variables and lets, nest (the inner loop runs serially), and start
// at a non-zero minimum.
#include <catch2/catch.hpp>

#include "runtime/thread_pool.h"
#include "tests/llvm_cpu/llvm_test_util.h"

using namespace tessel;
using namespace tessel::test;

namespace {

struct ThreadCountGuard {
  int saved = num_threads();
  ~ThreadCountGuard() { set_num_threads(saved); }
};

}  // namespace

TEST_CASE("a parallel loop writes every element of disjoint slices once", "[llvm_cpu][parallel]") {
  ThreadCountGuard guard;
  const int64_t rows = 37, cols = 24;
  FuncArg a = vector_arg("a", DataType::float32(), rows * cols), out = vector_arg("out", DataType::float32(), rows * cols);
  Var i("i"), j("j");
  Expr idx = Expr(i) * make_int(cols) + j;
  // out += a + 1 (a read-modify-write: a slice written twice would show as +2)
  Stmt body = loop(j, cols, make_store(out.buffer, idx, load(out.buffer, idx) + load(a.buffer, idx) + 1.0));
  auto f = jit(LoweredFunc{"par_slices", {a, out}, loop(i, rows, body, ForKind::Parallel)});
  for (int threads : {1, 2, 3}) {
    set_num_threads(threads);
    std::vector<NDArray> arrays = {NDArray::random_uniform({rows * cols}, DataType::float32(), 9),
                                   NDArray::zeros({rows * cols}, DataType::float32())};
    run(*f, arrays);
    for (int64_t k = 0; k < rows * cols; ++k)
      CHECK(arrays[1].data_as<float>()[k] == Approx(arrays[0].data_as<float>()[k] + 1.0f));
  }
}

TEST_CASE("nested parallel loops and captured variables compute the right indices", "[llvm_cpu][parallel]") {
  ThreadCountGuard guard;
  set_num_threads(2);
  const int64_t outer = 5, inner = 9, width = 4;
  FuncArg out = vector_arg("out", DataType::int32(), outer * inner * width);
  Var o("o"), i("i"), w("w"), base("base");
  // for o: let base = o*inner*width in parallel i: parallel w: out[base + i*width + w] = o*1000 + i*10 + w
  Expr idx = Expr(base) + Expr(i) * make_int(width) + w;
  Expr value = Expr(o) * 1000 + Expr(i) * 10 + w;
  Stmt innermost = loop(w, width, make_store(out.buffer, idx, value), ForKind::Parallel);
  Stmt body = make_let(base, Expr(o) * make_int(inner * width), loop(i, inner, innermost, ForKind::Parallel));
  auto f = jit(LoweredFunc{"nested", {out}, loop(o, outer, body)});
  std::vector<NDArray> arrays = {NDArray::zeros({outer * inner * width}, DataType::int32())};
  run(*f, arrays);
  for (int64_t oo = 0; oo < outer; ++oo)
    for (int64_t ii = 0; ii < inner; ++ii)
      for (int64_t ww = 0; ww < width; ++ww)
        CHECK(arrays[0].data_as<int32_t>()[(oo * inner + ii) * width + ww] == oo * 1000 + ii * 10 + ww);
}

TEST_CASE("a parallel loop with a non-zero minimum covers exactly its range", "[llvm_cpu][parallel]") {
  ThreadCountGuard guard;
  set_num_threads(2);
  const int64_t n = 100;
  FuncArg out = vector_arg("out", DataType::int64(), n);
  Var i("i", DataType::int64());
  Stmt body = make_for(i, make_int(-7, DataType::int64()), make_int(50, DataType::int64()), ForKind::Parallel,
                       make_store(out.buffer, Expr(i) + make_int(10, DataType::int64()), Expr(i)));
  auto f = jit(LoweredFunc{"offset_range", {out}, body});
  std::vector<NDArray> arrays = {NDArray::zeros({n}, DataType::int64())};
  for (int64_t k = 0; k < n; ++k) arrays[0].data_as<int64_t>()[k] = -1000;
  run(*f, arrays);
  for (int64_t k = 0; k < n; ++k) {
    bool written = k >= 3 && k < 53;
    CHECK(arrays[0].data_as<int64_t>()[k] == (written ? k - 10 : -1000));
  }
}

TEST_CASE("a loop variable reused after its loop ends is not captured by a parallel loop", "[llvm_cpu][parallel]") {
  // Loop partitioning repeats a loop with the same variable: here `j` runs serially under a branch,
  // then again inside a parallel loop, whose outlined body must bind its own `j` rather than
  // capture the value the earlier loop left behind (which does not dominate the capture).
  ThreadCountGuard guard;
  set_num_threads(2);
  const int64_t rows = 6, cols = 5;
  FuncArg out = vector_arg("out", DataType::int32(), rows * cols);
  Var i("i"), j("j");
  Stmt first_row = make_if(eq(load(out.buffer, make_int(0)), make_int(0)),
                           loop(j, cols, make_store(out.buffer, j, Expr(j) + 100)));
  Expr idx = Expr(i) * make_int(cols) + j;
  Stmt other_rows = loop(i, rows - 1, loop(j, cols, make_store(out.buffer, idx + cols, Expr(i) * 10 + j)),
                         ForKind::Parallel);
  auto f = jit(LoweredFunc{"rebound", {out}, make_seq({first_row, other_rows})});
  std::vector<NDArray> arrays = {NDArray::zeros({rows * cols}, DataType::int32())};
  run(*f, arrays);
  for (int64_t c = 0; c < cols; ++c) CHECK(arrays[0].data_as<int32_t>()[c] == 100 + c);
  for (int64_t r = 1; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) CHECK(arrays[0].data_as<int32_t>()[r * cols + c] == (r - 1) * 10 + c);
}
