// The measurement sandbox: hand-built kernels that crash, hang or compute the wrong thing become
// Crash, Timeout and WrongResult records, the good kernels around them are still measured, and
// the test process survives. Then the measurer on a real task, compile errors included.
#include <catch2/catch.hpp>

#include <chrono>

#include "backends/backend.h"
#include "search/measure/measurer.h"
#include "search/measure/sandbox.h"
#include "support/registry.h"
#include "tests/search/search_test_util.h"

using namespace tessel;
using namespace tessel::search;

namespace {

constexpr int64_t kSize = 64;

struct Buffers {
  FuncArg x{Buffer("x", DataType::float32(), MemoryScope::global()), {kSize}};
  FuncArg y{Buffer("y", DataType::float32(), MemoryScope::global()), {kSize}};
};

Stmt loop(const Var& v, int64_t extent, Stmt body) {
  return make_for(v, make_int(0), make_int(extent), ForKind::Serial, std::move(body));
}

std::unique_ptr<CompiledFunction> compile(const Buffers& b, const std::string& name, Stmt body) {
  return Registry<Backend>::instance().create("llvm_cpu")->compile(LoweredFunc{name, {b.x, b.y}, std::move(body)});
}

// y[i] = x[i] * 2: the reference behaviour.
std::unique_ptr<CompiledFunction> doubling_kernel() {
  Buffers b;
  Var i("i");
  return compile(b, "double_it", loop(i, kSize, make_store(b.y.buffer, i, load(b.x.buffer, i) * Expr(2.0))));
}

// Stores a gigabyte past the end of y.
std::unique_ptr<CompiledFunction> crashing_kernel() {
  Buffers b;
  return compile(b, "crash", make_store(b.y.buffer, make_int(1 << 28), Expr(1.0)));
}

// 2^62 iterations of a floating-point accumulation LLVM cannot fold away.
std::unique_ptr<CompiledFunction> hanging_kernel() {
  Buffers b;
  Var i("i"), j("j");
  Stmt bump = make_store(b.y.buffer, make_int(0), load(b.y.buffer, make_int(0)) + load(b.x.buffer, j % Expr(kSize)));
  return compile(b, "hang", loop(i, (int64_t(1) << 31) - 1, loop(j, (int64_t(1) << 31) - 1, bump)));
}

// y[i] = x[i] * 3.
std::unique_ptr<CompiledFunction> wrong_kernel() {
  Buffers b;
  Var i("i");
  return compile(b, "wrong", loop(i, kSize, make_store(b.y.buffer, i, load(b.x.buffer, i) * Expr(3.0))));
}

}  // namespace

TEST_CASE("the sandbox turns crashes, hangs and wrong results into records", "[search][measure]") {
  NDArray x = NDArray::random_uniform({kSize}, DataType::float32(), 5);
  NDArray reference = NDArray::empty({kSize}, DataType::float32());
  for (int64_t i = 0; i < kSize; ++i) reference.set_double(i, static_cast<float>(x.get_double(i) * 2));
  SandboxOptions options;
  options.timeout_s = 0.5;
  options.repeats = 2;
  Sandbox sandbox({x}, reference, options);

  auto good = doubling_kernel(), crash = crashing_kernel(), hang = hanging_kernel(), wrong = wrong_kernel();
  auto start = std::chrono::steady_clock::now();
  std::vector<MeasureResult> results =
      sandbox.run({good.get(), crash.get(), good.get(), hang.get(), nullptr, wrong.get(), good.get()});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  REQUIRE(results.size() == 7);
  CHECK(results[0].status == TrialStatus::Ok);
  CHECK(results[0].timing.median_us > 0);
  CHECK(results[0].timing.repeats == 2);
  CHECK(results[1].status == TrialStatus::Crash);
  CHECK_THAT(results[1].error, Catch::Contains("SIGSEGV") || Catch::Contains("SIGBUS"));
  CHECK(results[2].status == TrialStatus::Ok);
  CHECK(results[3].status == TrialStatus::Timeout);
  CHECK(results[4].status == TrialStatus::RuntimeError);  // the caller's slot for a kernel that never compiled
  CHECK(results[5].status == TrialStatus::WrongResult);
  CHECK(results[5].max_abs_err > 0.01);
  CHECK(results[6].status == TrialStatus::Ok);
  CHECK(seconds < 5);  // the hang cost its timeout, not forever
}

TEST_CASE("the measurer compiles a batch and measures it against the reference", "[search][measure]") {
  Task task = Task::create("gemm:32", "template");
  MeasureOptions options;
  options.repeats = 2;
  Measurer measurer(task, options);
  std::vector<Config> configs = {task.schedule_template().default_config(), task.space().get(0),
                                 task.space().get(task.space().size() - 1)};
  std::vector<MeasureResult> results = measurer.measure(configs);
  REQUIRE(results.size() == 3);
  for (const MeasureResult& r : results) {
    INFO(status_name(r.status) << ": " << r.error);
    CHECK(r.ok());
    CHECK(r.max_abs_err <= result_tolerance(32));
    CHECK(r.compile_s > 0);
    CHECK(r.gflops(task.workload().flops()) > 0);
  }
}

TEST_CASE("measurement options are checked", "[search][measure]") {
  Task task = Task::create(test::kTinyGemm, "template");
  MeasureOptions bad;
  bad.repeats = 0;
  CHECK_THROWS_WITH(Measurer(task, bad), Catch::Contains("repeats"));
  MeasureOptions unknown_backend;
  unknown_backend.backend = "nope";
  CHECK_THROWS_WITH(Measurer(task, unknown_backend), Catch::Contains("llvm_cpu"));
}
