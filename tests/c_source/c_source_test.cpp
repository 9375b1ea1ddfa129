// The c_source back end against the reference interpreter: hand-built lowered functions (scalar
// and vector GEMM, parallel loops, local buffers, floor division, intrinsics) must compute what
// the tensor expression defines; compiler failures and IR outside the contract must raise
// UserError with a useful message.
#include <catch2/catch.hpp>

#include "backends/c_source/c_codegen.h"
#include "backends/c_source/c_source_backend.h"
#include "ir/te_interpreter.h"
#include "support/registry.h"

#if __has_include("passes/lower/lower.h")
#include "passes/lower/lower.h"
#include "tests/user_error_check.h"
#define TESSEL_HAVE_LOWER 1
#endif

using namespace tessel;

namespace {

constexpr int64_t M = 16, N = 24, K = 8;

Buffer global(const std::string& name, DataType t = DataType::float32()) {
  return Buffer(name, t, MemoryScope::global());
}

void run(const CompiledFunction& kernel, const std::vector<NDArray*>& arrays) {
  std::vector<void*> args;
  for (NDArray* a : arrays) args.push_back(a->data());
  kernel.call(args.data());
}

struct GemmCase {
  Tensor a = placeholder({M, K}, DataType::float32(), "A");
  Tensor b = placeholder({K, N}, DataType::float32(), "B");
  IterVar k = reduce_axis(K, "k");
  Tensor c = compute({M, N}, [&](Var i, Var j) { return sum(a(i, k) * b(k, j), {k}); }, "C");
  NDArray av = NDArray::random_uniform({M, K}, DataType::float32(), 1);
  NDArray bv = NDArray::random_uniform({K, N}, DataType::float32(), 2);
  NDArray expected = evaluate(c, {{a, av}, {b, bv}});
  Buffer ba = global("A"), bb = global("B"), bc = global("C");

  LoweredFunc func(const std::string& name, Stmt body) const {
    return LoweredFunc{name, {{ba, {M, K}}, {bb, {K, N}}, {bc, {M, N}}}, std::move(body)};
  }
  double error_of(const LoweredFunc& f) {
    auto kernel = CSourceBackend().compile(f);
    NDArray out = NDArray::zeros({M, N}, DataType::float32());
    NDArray a_copy = av, b_copy = bv;
    run(*kernel, {&a_copy, &b_copy, &out});
    return max_abs_diff(out, expected);
  }
};

}  // namespace

TEST_CASE("c_source: scalar GEMM with a parallel outer loop matches the interpreter", "[c_source]") {
  GemmCase g;
  Var i("i"), j("j"), k("k");
  Expr c_index = i * N + j;
  Stmt update = make_store(g.bc, c_index, load(g.bc, c_index) + load(g.ba, i * K + k) * load(g.bb, k * N + j));
  Stmt body = make_for(i, 0, M, ForKind::Parallel,
                       make_for(j, 0, N, ForKind::Serial,
                                make_seq({make_store(g.bc, c_index, 0.0), make_for(k, 0, K, ForKind::Serial, update)})));
  LoweredFunc f = g.func("gemm", body);
  CHECK(g.error_of(f) < 1e-5);
  std::string c = CSourceBackend().emit(f, "c");
  CHECK(c.find("#pragma omp parallel for") != std::string::npos);
  CHECK(c.find("void gemm_packed(void* const* args)") != std::string::npos);
}

TEST_CASE("c_source: vectorized GEMM with a local accumulator matches the interpreter", "[c_source]") {
  GemmCase g;
  Var i("i"), jo("j.outer"), k("k");
  Buffer acc("C.local", DataType::float32(), MemoryScope::local());
  Expr lanes = ramp(0, 1, 8);
  Stmt init = make_store(acc, lanes, broadcast(make_float(0.0), 8));
  Stmt update = make_store(acc, lanes,
                           load(acc, lanes) + broadcast(load(g.ba, i * K + k), 8) * load(g.bb, ramp(k * N + jo * 8, 1, 8)));
  Stmt write_back = make_store(g.bc, ramp(i * N + jo * 8, 1, 8), load(acc, lanes));
  Stmt body = make_for(i, 0, M, ForKind::Parallel,
                       make_for(jo, 0, N / 8, ForKind::Serial,
                                make_allocate(acc, 8, make_seq({init, make_for(k, 0, K, ForKind::Serial, update), write_back}))));
  LoweredFunc f = g.func("gemm_vec", body);
  CHECK(g.error_of(f) < 1e-5);
  std::string c = CSourceBackend().emit(f, "c");
  CHECK(c.find("#pragma omp simd") != std::string::npos);
  CHECK(c.find("float C_local[8] __attribute__((aligned(64)));") != std::string::npos);
}

TEST_CASE("c_source: floor division, conditionals, lets and narrow integers", "[c_source]") {
  // out[i] = (i - 9) / 4 * 100 + (i - 9) % 4, computed through a LetStmt and a guarded store;
  // bytes[i] = int8(i * 37) + 100 wraps around.
  Tensor t = compute({20}, [&](Var i) { return (i - 9) / 4 * 100 + (i - 9) % 4; }, "T");
  Tensor w = compute({20}, [&](Var i) { return cast(DataType::int8(), i * 37) + make_int(100, DataType::int8()); }, "W");
  NDArray expected_t = evaluate(t, TensorValues{}), expected_w = evaluate(w, TensorValues{});

  Buffer out = global("out", DataType::int32()), bytes = global("bytes", DataType::int8());
  Var i("i"), d("d");
  Stmt let = make_let(d, i - 9, make_store(out, i, d / 4 * 100 + d % 4));
  Stmt guarded = make_if(i < 20, let, make_store(out, 0, -1));
  Stmt narrow = make_store(bytes, i, cast(DataType::int8(), i * 37) + make_int(100, DataType::int8()));
  LoweredFunc f{"floors", {{out, {20}}, {bytes, {20}}}, make_for(i, 0, 20, ForKind::Serial, make_seq({guarded, narrow}))};
  auto kernel = CSourceBackend().compile(f);
  NDArray out_v = NDArray::zeros({20}, DataType::int32()), bytes_v = NDArray::zeros({20}, DataType::int8());
  run(*kernel, {&out_v, &bytes_v});
  CHECK(max_abs_diff(out_v, expected_t) == 0);
  CHECK(max_abs_diff(bytes_v, expected_w) == 0);
}

TEST_CASE("c_source: a vector store reading lanes it overwrites keeps vector semantics", "[c_source]") {
  // X[1..8] = X[0..7] as one vector: every lane reads the old value.
  Buffer x = global("X");
  LoweredFunc f{"shift", {{x, {9}}}, make_store(x, ramp(1, 1, 8), load(x, ramp(0, 1, 8)))};
  auto kernel = CSourceBackend().compile(f);
  NDArray xv = NDArray::from_vector<float>({9}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
  run(*kernel, {&xv});
  CHECK(std::vector<float>(xv.data_as<float>(), xv.data_as<float>() + 9) ==
        std::vector<float>{0, 0, 1, 2, 3, 4, 5, 6, 7});
}

TEST_CASE("c_source: intrinsics and selects match the interpreter", "[c_source]") {
  Tensor a = placeholder({64}, DataType::float32(), "A");
  Tensor act = compute({64}, [&](Var i) {
    return select(a(i) > 0.0, call("sqrt", {a(i)}), call("sigmoid", {a(i)}) + call("tanh", {a(i)})) *
           call("exp", {call("fabs", {a(i)}) * -0.5});
  }, "Act");
  NDArray av = NDArray::random_uniform({64}, DataType::float32(), 3, -2.0, 2.0);
  NDArray expected = evaluate(act, {{a, av}});
  Buffer ba = global("A"), bo = global("Act");
  Var i("i");
  Expr x = load(ba, i);
  Expr value = select(x > 0.0, call("sqrt", {x}), call("sigmoid", {x}) + call("tanh", {x})) *
               call("exp", {call("fabs", {x}) * -0.5});
  LoweredFunc f{"act", {{ba, {64}}, {bo, {64}}}, make_for(i, 0, 64, ForKind::Serial, make_store(bo, i, value))};
  auto kernel = CSourceBackend().compile(f);
  NDArray out = NDArray::zeros({64}, DataType::float32());
  run(*kernel, {&av, &out});
  CHECK(max_abs_diff(out, expected) < 1e-6);
}

TEST_CASE("c_source: compiler failures and unsupported IR raise UserError", "[c_source]") {
  Buffer x = global("X");
  LoweredFunc f{"tiny", {{x, {1}}}, make_store(x, 0, 1.0)};
  c_source::CCompilerOptions bad_arch;
  bad_arch.march = "no-such-cpu";
  test::require_user_error([&] { CSourceBackend(bad_arch).compile(f); },
                     {"the C compiler failed", "tiny.c", "no-such-cpu"});
  c_source::CCompilerOptions missing;
  missing.compiler = "tessel-no-such-compiler";
  test::require_user_error([&] { CSourceBackend(missing).compile(f); }, {"cannot run the C compiler 'tessel-no-such-compiler'"});

  Tensor t = placeholder({1}, DataType::float32(), "T");
  LoweredFunc unflattened{"bad", {{x, {1}}}, make_provide(t.ptr(), {Expr(0)}, make_float(1.0))};
  test::require_user_error([&] { c_source::generate_c(unflattened); }, {"Provide", "lower the schedule first"});
  Buffer tmp("tmp", DataType::float32(), MemoryScope::local());
  Var n("n");
  LoweredFunc dynamic{"dyn", {{x, {1}}}, make_let(n, 4, make_allocate(tmp, n, make_store(x, 0, 1.0)))};
  test::require_user_error([&] { c_source::generate_c(dynamic); }, {"constant size", "tmp"});
  test::require_user_error([&] { CSourceBackend().emit(f, "asm"); }, {"valid formats: c"});
}

TEST_CASE("c_source: registered as a back-end plugin", "[c_source]") {
  auto backend = Registry<Backend>::instance().create("c_source", {{"opt_level", 1}});
  REQUIRE(backend->name() == "c_source");
  test::require_user_error([] { Registry<Backend>::instance().create("c_source", {{"opt_level", 7}}); }, {"opt_level"});
}

#ifdef TESSEL_HAVE_LOWER
TEST_CASE("c_source: lowered GEMM with a tiled, vectorized schedule matches the interpreter", "[c_source]") {
  GemmCase g;
  Schedule s = create_schedule({g.c});
  auto [io, jo, ii, ji] = s[g.c].tile(s[g.c].axis(0), s[g.c].axis(1), 4, 8);
  s[g.c].vectorize(ji);
  s[g.c].parallel(io);
  LoweredFunc f = lower(s, {g.a, g.b, g.c}, "gemm_lowered");
  auto kernel = CSourceBackend().compile(f);
  NDArray out = NDArray::zeros({M, N}, DataType::float32());
  run(*kernel, {&g.av, &g.bv, &out});
  CHECK(max_abs_diff(out, g.expected) < 1e-5);
}
#endif
