// Local allocations: small constant-size buffers on the stack, large ones on the heap, both
// correct when re-entered in a loop.
#include <catch2/catch.hpp>

#include "runtime/thread_pool.h"
#include "tests/llvm_cpu/llvm_test_util.h"

using namespace tessel;
using namespace tessel::test;

namespace {

// For each row r: tmp[k] = a[r*len + k] * 2 for all k, then out[r] = sum_k tmp[k] (via a
// one-element accumulator buffer). Exercises a temporary that is rewritten every iteration.
LoweredFunc row_sums_through_temporary(int64_t rows, int64_t len, ForKind row_kind) {
  FuncArg a = vector_arg("a", DataType::float32(), rows * len), out = vector_arg("out", DataType::float32(), rows);
  Buffer tmp("tmp", DataType::float32(), MemoryScope::local());
  Buffer acc("acc", DataType::float32(), MemoryScope::local());
  Var r("r"), k("k"), k2("k2");
  Stmt fill = loop(k, len, make_store(tmp, k, load(a.buffer, Expr(r) * make_int(len) + k) * 2.0));
  Stmt sum = make_seq({make_store(acc, make_int(0), make_float(0.0)),
                       loop(k2, len, make_store(acc, make_int(0), load(acc, make_int(0)) + load(tmp, k2))),
                       make_store(out.buffer, r, load(acc, make_int(0)))});
  Stmt body = make_allocate(tmp, make_int(len), make_allocate(acc, make_int(1), make_seq({fill, sum})));
  return LoweredFunc{"row_sums", {a, out}, loop(r, rows, body, row_kind)};
}

void check_row_sums(const LoweredFunc& func, int64_t rows, int64_t len) {
  auto f = jit(func);
  std::vector<NDArray> arrays = {NDArray::random_uniform({rows * len}, DataType::float32(), 11),
                                 NDArray::zeros({rows}, DataType::float32())};
  run(*f, arrays);
  for (int64_t r = 0; r < rows; ++r) {
    double expected = 0;
    for (int64_t k = 0; k < len; ++k) expected += 2.0 * arrays[0].data_as<float>()[r * len + k];
    CHECK(arrays[1].data_as<float>()[r] == Approx(expected).epsilon(1e-4).margin(1e-3));
  }
}

}  // namespace

TEST_CASE("a small temporary lives on the stack and is reused per iteration", "[llvm_cpu][memory]") {
  LoweredFunc func = row_sums_through_temporary(8, 256, ForKind::Serial);
  check_row_sums(func, 8, 256);
  std::string ir = emit_llvm_ir(func);
  CHECK(ir.find("tessel_workspace_alloc") == std::string::npos);
}

TEST_CASE("a large temporary comes from the runtime's workspace cache and goes back to it", "[llvm_cpu][memory]") {
  const int64_t len = 100000;  // 400 KB: beyond the stack limit
  LoweredFunc func = row_sums_through_temporary(3, len, ForKind::Serial);
  check_row_sums(func, 3, len);
  std::string ir = emit_llvm_ir(func);
  CHECK(ir.find("tessel_workspace_alloc") != std::string::npos);
  CHECK(ir.find("tessel_workspace_free") != std::string::npos);
}

TEST_CASE("temporaries inside a parallel loop are private to each thread", "[llvm_cpu][memory][parallel]") {
  set_num_threads(2);
  check_row_sums(row_sums_through_temporary(64, 512, ForKind::Parallel), 64, 512);
  check_row_sums(row_sums_through_temporary(16, 70000, ForKind::Parallel), 16, 70000);
}

TEST_CASE("a buffer allocated with a negative size is rejected", "[llvm_cpu][memory][errors]") {
  FuncArg out = vector_arg("out", DataType::float32(), 1);
  Buffer tmp("tmp", DataType::float32(), MemoryScope::local());
  Stmt body = make_allocate(tmp, make_int(-4), make_store(out.buffer, make_int(0), make_float(1.0)));
  CHECK_THROWS_WITH(jit(LoweredFunc{"negative", {out}, body}), Catch::Contains("negative size"));
}
