// Vector code generation: contiguous Ramp loads and stores, Broadcast, strided Ramps (gather, lane
// by lane for a few lanes, and scatter), vector floor division, wide vectors, and checks that a float multiply-add loop becomes
// FMAs of the target's vector width: 512-bit for an AVX-512 target (cross-compiled on any host),
// 256-bit under an AVX2 ceiling.
#include <catch2/catch.hpp>

#include "backends/llvm_cpu/llvm_cpu.h"
#include "tests/llvm_cpu/llvm_test_util.h"
#include "passes/lower/vectorize.h"

using namespace tessel;
using namespace tessel::test;

namespace {

// out[i*L : i*L+L] = a[..] * b[..] + broadcast(c)
LoweredFunc vector_fma(int lanes, int64_t n) {
  FuncArg a = vector_arg("a", DataType::float32(), n), b = vector_arg("b", DataType::float32(), n);
  FuncArg out = vector_arg("out", DataType::float32(), n);
  Var i("i");
  Expr index = ramp(Expr(i) * lanes, 1, lanes);
  Expr value = load(a.buffer, index) * load(b.buffer, index) + broadcast(make_float(1.5), lanes);
  return LoweredFunc{"vector_fma", {a, b, out}, loop(i, n / lanes, make_store(out.buffer, index, value))};
}

}  // namespace

TEST_CASE("contiguous vector loads and stores with broadcast compute every lane", "[llvm_cpu][vector]") {
  for (int lanes : {4, 8, 16, 64}) {
    const int64_t n = 256;
    auto f = jit(vector_fma(lanes, n));
    std::vector<NDArray> arrays = {NDArray::random_uniform({n}, DataType::float32(), 1),
                                   NDArray::random_uniform({n}, DataType::float32(), 2),
                                   NDArray::zeros({n}, DataType::float32())};
    run(*f, arrays);
    for (int64_t k = 0; k < n; ++k) {
      float expected = arrays[0].data_as<float>()[k] * arrays[1].data_as<float>()[k] + 1.5f;
      CHECK(arrays[2].data_as<float>()[k] == Approx(expected).epsilon(1e-6));
    }
  }
}

namespace {

// t[j*rows + 0..rows-1] = a[j + cols*(0..rows-1)]: a strided load, a contiguous store.
LoweredFunc transpose_gather(int rows, int cols) {
  FuncArg a = vector_arg("a", DataType::float32(), rows * cols), t = vector_arg("t", DataType::float32(), rows * cols);
  Var j("j");
  Stmt gather = make_store(t.buffer, ramp(Expr(j) * rows, 1, rows), load(a.buffer, ramp(Expr(j), cols, rows)));
  return LoweredFunc{"transpose_gather", {a, t}, loop(j, cols, gather)};
}

}  // namespace

TEST_CASE("strided ramps gather and scatter (a transpose)", "[llvm_cpu][vector]") {
  // 2-4 lanes load lane by lane, 16 by a gather instruction
  for (int rows : {2, 3, 4, 16}) {
    const int cols = 8;
    INFO(rows << " lanes");
    auto f = jit(transpose_gather(rows, cols));
    // and back with a strided store: a2[j + cols*(0..rows-1)] = t[j*rows + 0..rows-1]
    FuncArg t = vector_arg("t", DataType::float32(), rows * cols), a2 = vector_arg("a2", DataType::float32(), rows * cols);
    Var j("j");
    Stmt scatter = make_store(a2.buffer, ramp(Expr(j), cols, rows), load(t.buffer, ramp(Expr(j) * rows, 1, rows)));
    auto g = jit(LoweredFunc{"transpose_scatter", {t, a2}, loop(j, cols, scatter)});

    std::vector<NDArray> first = {NDArray::random_uniform({rows * cols}, DataType::float32(), 5),
                                  NDArray::zeros({rows * cols}, DataType::float32())};
    run(*f, first);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c)
        CHECK(first[1].data_as<float>()[c * rows + r] == first[0].data_as<float>()[r * cols + c]);
    std::vector<NDArray> second = {first[1], NDArray::zeros({rows * cols}, DataType::float32())};
    run(*g, second);
    CHECK(max_abs_diff(second[1], first[0]) == 0.0);
  }
}

TEST_CASE("vector floor division and modulo of ramps with negative lanes", "[llvm_cpu][vector]") {
  const int lanes = 16;
  FuncArg q = vector_arg("q", DataType::int32(), lanes), r = vector_arg("r", DataType::int32(), lanes);
  Expr idx = ramp(make_int(0), 1, lanes);
  Expr values = ramp(make_int(-9), 1, lanes);  // -9 .. 6
  Stmt body = make_seq({make_store(q.buffer, idx, values / broadcast(make_int(4), lanes)),
                        make_store(r.buffer, idx, values % broadcast(make_int(4), lanes))});
  auto f = jit(LoweredFunc{"vector_floor", {q, r}, body});
  std::vector<NDArray> arrays = {NDArray::zeros({lanes}, DataType::int32()), NDArray::zeros({lanes}, DataType::int32())};
  run(*f, arrays);
  for (int k = 0; k < lanes; ++k) {
    int v = k - 9;
    int floor_q = (v >= 0) ? v / 4 : -((-v + 3) / 4);
    CHECK(arrays[0].data_as<int32_t>()[k] == floor_q);
    CHECK(arrays[1].data_as<int32_t>()[k] == v - 4 * floor_q);
  }
}

static LlvmCpuOptions for_target(const std::string& target) {
  LlvmCpuOptions options;
  options.target = Target::parse(target);
  return options;
}

TEST_CASE("a vector multiply-add loop becomes 512-bit FMAs for an AVX-512 target", "[llvm_cpu][vector][asm]") {
  std::string assembly = emit_assembly(vector_fma(16, 4096), for_target("llvm_cpu -isa=avx512"));
  INFO(assembly.substr(0, 4000));
  CHECK(assembly.find("vfmadd") != std::string::npos);
  CHECK(assembly.find("zmm") != std::string::npos);
  CHECK(assembly.find("ymm") == std::string::npos);  // nothing split into 256-bit halves
}

TEST_CASE("under an AVX2 ceiling, 16-lane vector code becomes ymm FMAs and no zmm", "[llvm_cpu][vector][asm]") {
  std::string assembly = emit_assembly(vector_fma(16, 4096), for_target("llvm_cpu -isa=avx2"));
  INFO(assembly.substr(0, 4000));
  CHECK(assembly.find("vfmadd") != std::string::npos);
  CHECK(assembly.find("ymm") != std::string::npos);
  CHECK(assembly.find("zmm") == std::string::npos);
}

TEST_CASE("a scalar float loop is vectorized to zmm FMAs by LLVM's loop vectorizer", "[llvm_cpu][vector][asm]") {
  const int64_t n = 4096;
  FuncArg a = vector_arg("a", DataType::float32(), n), b = vector_arg("b", DataType::float32(), n);
  FuncArg out = vector_arg("out", DataType::float32(), n);
  Var i("i");
  Stmt body = make_store(out.buffer, i, load(out.buffer, i) + load(a.buffer, i) * load(b.buffer, i));
  std::string assembly =
      emit_assembly(LoweredFunc{"axpy_like", {a, b, out}, loop(i, n, body)}, for_target("llvm_cpu -isa=avx512"));
  CHECK(assembly.find("zmm") != std::string::npos);
  CHECK(assembly.find("vfmadd") != std::string::npos);
}

TEST_CASE("a strided load of 3 lanes loads them one by one, not by a gather instruction", "[llvm_cpu][vector][asm]") {
  std::string few = emit_assembly(transpose_gather(3, 8), for_target("llvm_cpu -isa=avx512"));
  INFO(few.substr(0, 4000));
  CHECK(few.find("vgather") == std::string::npos);
  CHECK(emit_assembly(transpose_gather(16, 8), for_target("llvm_cpu -isa=avx512")).find("vgather") != std::string::npos);
}

TEST_CASE("a 24-float vector loop on AVX-512 becomes 16- and 8-lane FMAs, no lane moved alone", "[llvm_cpu][vector][asm]") {
  // acc[0..23] += a[i*24 ..] * b[i*24 ..], vectorized over the 24 lanes in register-sized pieces
  const int64_t lanes = 24, n = 24 * 64;
  FuncArg a = vector_arg("a", DataType::float32(), n), b = vector_arg("b", DataType::float32(), n);
  FuncArg acc = vector_arg("acc", DataType::float32(), lanes);
  Var i("i"), l("l");
  Expr at = Expr(i) * lanes + l;
  Stmt body = loop(l, lanes, make_store(acc.buffer, l, load(acc.buffer, l) + load(a.buffer, at) * load(b.buffer, at)),
                   ForKind::Vectorized);
  LoweredFunc f{"tile24", {a, b, acc}, vectorize_loops(loop(i, n / lanes, body), 512)};
  std::string assembly = emit_assembly(f, for_target("llvm_cpu -isa=avx512"));
  INFO(assembly.substr(0, 4000));
  CHECK(assembly.find("zmm") != std::string::npos);
  CHECK(assembly.find("ymm") != std::string::npos);
  CHECK(assembly.find("vinsertps") == std::string::npos);
  CHECK(assembly.find("vextractf") == std::string::npos);
}
