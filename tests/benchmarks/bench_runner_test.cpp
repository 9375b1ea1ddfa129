// The harness: agreeing kernels are judged correct and disagreeing ones not, the JSON has the
// documented keys in order, the table ends with the geometric-mean speedup, and --winograd runs
// the cases it applies to by Winograd.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>

#include "benchmarks/baselines/openblas.h"
#include "benchmarks/bench_runner.h"
#include "tests/benchmarks/naive_reference.h"

using namespace tessel;

namespace {

struct GemmFixture {
  GemmShape shape{24, 20, 16};
  std::vector<float> a = random_tensor(shape.m * shape.k, 1);
  std::vector<float> b = random_tensor(shape.k * shape.n, 2);
  CaseSpec spec{"gemm", "custom", describe(shape), shape.flops(), shape.m * shape.n, shape.k};

  // A stand-in for Tessel's kernel: the naive product, optionally off by `offset` in one element.
  PreparedKernel naive_side(float offset) const {
    auto c = std::make_shared<std::vector<float>>(testing::naive_gemm(shape, a, b));
    (*c)[5] += offset;
    return {"tessel", [] {}, [c](float* out) { std::copy(c->begin(), c->end(), out); }};
  }
};

BenchOptions quick_options() {
  BenchOptions options;
  options.repeats = 3;
  options.warmup = 1;
  return options;
}

}  // namespace

TEST_CASE("compare_kernels accepts agreeing outputs and rejects disagreeing ones", "[harness]") {
  GemmFixture f;
  PreparedKernel blas = prepare_openblas_gemm(f.shape, f.a.data(), f.b.data(), 1);
  CaseResult good = compare_kernels(f.spec, f.naive_side(0), blas, quick_options());
  CHECK(good.correct);
  CHECK(good.max_abs_err <= good.tolerance);
  CHECK(good.baseline == "openblas");
  CHECK(good.tessel.repeats == 3);
  CHECK(good.base.repeats == 3);
  CHECK(good.base.min_us <= good.base.median_us);
  CaseResult bad = compare_kernels(f.spec, f.naive_side(0.5f), blas, quick_options());
  CHECK_FALSE(bad.correct);
  CHECK(bad.max_abs_err == Approx(0.5).epsilon(1e-3));
}

TEST_CASE("the tolerance grows with the reduction size", "[harness]") {
  CHECK(error_tolerance(4608) > error_tolerance(9));
  CHECK(error_tolerance(1024) < 1e-3);
  CHECK(error_tolerance(0) > 0);
}

TEST_CASE("to_json starts with the documented keys, in order", "[harness]") {
  CaseResult r;
  r.spec = {"conv2d", "C6", "shape", 2e9, 10, 9};
  r.baseline = "onednn";
  r.tessel = summarize({100, 110, 120});
  r.base = summarize({200});
  r.max_abs_err = 1e-6;
  r.correct = true;
  r.threads = 2;
  nlohmann::ordered_json j = r.to_json();
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  std::vector<std::string> documented = {"op", "workload", "tessel_us", "baseline", "baseline_us",
                                         "speedup", "gflops", "max_abs_err", "correct"};
  REQUIRE(keys.size() > documented.size());
  CHECK(std::vector<std::string>(keys.begin(), keys.begin() + documented.size()) == documented);
  CHECK(j["speedup"].get<double>() == Approx(200.0 / 110.0));
  CHECK(j["gflops"].get<double>() == Approx(2e9 / 110.0 * 1e-3));
  CHECK(j["correct"].get<bool>());
  CHECK_FALSE(j.contains("openblas_core"));
}

TEST_CASE("the table ends with the geometric-mean speedup of a multi-case run", "[harness]") {
  CaseResult r;
  r.spec = {"depthwise", "D1", "shape", 1e6, 1, 9};
  r.baseline = "onednn";
  r.base = summarize({100});
  std::ostringstream out;
  ResultPrinter printer(out, false);
  r.tessel = summarize({50});  // speedup 2
  printer.print(r);
  r.tessel = summarize({200});  // speedup 0.5
  printer.print(r);
  printer.finish();
  std::string text = out.str();
  CHECK(text.rfind("op ", 0) == 0);
  CHECK(text.find("geometric-mean speedup over 2 cases: 1.00\n") != std::string::npos);

  std::ostringstream json_out;
  ResultPrinter json_printer(json_out, true);
  json_printer.print(r);
  json_printer.finish();
  std::string json_text = json_out.str();
  CHECK(json_text.rfind("{\"op\":\"depthwise\"", 0) == 0);
  CHECK(std::count(json_text.begin(), json_text.end(), '\n') == 1);
}

TEST_CASE("bench conv2d --winograd runs 3x3 stride-1 cases by Winograd against oneDNN, the others direct",
          "[harness][winograd]") {
  BenchOptions options = quick_options();
  options.winograd = true;
  // 7x7 with 64 channels: ops::winograd_tile's F(2x2, 3x3); a stride-2 layer stays direct.
  CaseResult w = run_conv2d_case({"custom", parse_conv2d_shape("1,64,7,7,64,3,1,1")}, options);
  CHECK(w.schedule == "winograd2");
  CHECK(w.correct);
  CaseResult strided = run_conv2d_case({"custom", parse_conv2d_shape("1,64,8,8,64,3,2,1")}, options);
  CHECK(strided.schedule == "default");
  CHECK(strided.correct);
}
