// The benchmark harness: see bench_runner.h.
#include "benchmarks/bench_runner.h"

#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <random>
#include <thread>

#include "support/error.h"

namespace tessel {

namespace {

void settle(const BenchOptions& options) {
  if (options.settle_ms > 0) std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(options.settle_ms));
}

struct SideTimer {
  const PreparedKernel& kernel;
  int calls = 1;
  std::vector<double> samples;
};

void warm_up_and_calibrate(SideTimer& side, const BenchOptions& options) {
  for (int i = 0; i < options.warmup; ++i) side.kernel.run();
  side.calls = options.cache_flush ? 1 : calls_per_sample(side.kernel.run);
  settle(options);
}

void take_sample(SideTimer& side, const BenchOptions& options) {
  if (options.cache_flush) side.kernel.evict_weights();
  side.samples.push_back(time_sample_us(side.kernel.run, side.calls));
  settle(options);
}

// Samples the sides in the order A B B A A B ..., so neither always runs right after the other.
void sample_alternating(SideTimer& a, SideTimer& b, const BenchOptions& options) {
  for (int r = 0; r < options.repeats; ++r) {
    SideTimer& first = r % 2 ? b : a;
    SideTimer& second = r % 2 ? a : b;
    take_sample(first, options);
    take_sample(second, options);
  }
}

double max_abs_difference(const std::vector<float>& x, const std::vector<float>& y) {
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    double diff = std::fabs(double(x[i]) - double(y[i]));
    if (!(diff <= worst)) worst = diff;  // NaN sticks
  }
  return worst;
}

std::vector<float> output_of(const PreparedKernel& kernel, int64_t elements) {
  std::vector<float> out(elements, NAN);
  kernel.read_output(out.data());
  return out;
}

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

// Header and rows share one set of column widths.
constexpr const char* kHeaderFormat = "%-10s %-9s %9s  %-8s  %11s  %7s  %11s  %9s  %11s  %-7s  %-12s  %-13s  %s\n";
constexpr const char* kRowFormat =
    "%-10s %-9s %9.1f  %-8s  %11.1f  %7.2f  %11.1f  %9.1f  %11.2e  %-7s  %-12s  %-13s  %.0f/%.0f\n";

void print_table_header(std::ostream& out) {
  char header[256];
  std::snprintf(header, sizeof header, kHeaderFormat, "op", "workload", "tessel_us", "baseline", "baseline_us",
                "speedup", "tessel_GF/s", "base_GF/s", "max_abs_err", "correct", "schedule", "isa_t/b",
                "spread_%_t/b");
  out << header;
}

// "avx2/Haswell": the ISA of Tessel's target and what the vendor library ran.
std::string isa_pair(const CaseResult& r) {
  size_t isa = r.target.find("-isa=");
  std::string ours = isa == std::string::npos ? r.target : r.target.substr(isa + 5);
  return ours + "/" + r.baseline_isa;
}

std::string table_row(const CaseResult& r) {
  char row[256];
  std::snprintf(row, sizeof row, kRowFormat, r.spec.op.c_str(), r.spec.workload.c_str(), r.tessel.median_us,
                r.baseline.c_str(), r.base.median_us, r.speedup(), r.tessel_gflops(), r.baseline_gflops(),
                r.max_abs_err, r.correct ? "yes" : "NO", r.schedule.c_str(), isa_pair(r).c_str(), r.tessel.spread_pct,
                r.base.spread_pct);
  return row;
}

}  // namespace

double error_tolerance(int64_t reduction_size) { return 4.0 * FLT_EPSILON * double(std::max<int64_t>(reduction_size, 1)); }

std::vector<float> random_tensor(int64_t elements, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> values(elements);
  for (float& v : values) v = uniform(rng);
  return values;
}

CaseResult compare_kernels(const CaseSpec& spec, const PreparedKernel& tessel, const PreparedKernel& baseline,
                           const BenchOptions& options) {
  TESSEL_CHECK(options.repeats >= 1, "repeats must be >= 1");
  SideTimer tessel_side{tessel, 1, {}}, baseline_side{baseline, 1, {}};
  warm_up_and_calibrate(tessel_side, options);
  warm_up_and_calibrate(baseline_side, options);
  sample_alternating(tessel_side, baseline_side, options);

  CaseResult result;
  result.spec = spec;
  result.baseline = baseline.name;
  result.tessel = summarize(tessel_side.samples);
  result.base = summarize(baseline_side.samples);
  result.max_abs_err = max_abs_difference(output_of(tessel, spec.output_elements), output_of(baseline, spec.output_elements));
  result.tolerance = error_tolerance(spec.reduction_size);
  result.correct = result.max_abs_err <= result.tolerance;
  result.threads = options.threads;
  result.cache_flush = options.cache_flush;
  return result;
}

nlohmann::ordered_json CaseResult::to_json() const {
  nlohmann::ordered_json j = {{"op", spec.op},
                      {"workload", spec.workload},
                      {"tessel_us", tessel.median_us},
                      {"baseline", baseline},
                      {"baseline_us", base.median_us},
                      {"speedup", speedup()},
                      {"gflops", tessel_gflops()},
                      {"max_abs_err", max_abs_err},
                      {"correct", correct},
                      {"shape", spec.shape},
                      {"baseline_gflops", baseline_gflops()},
                      {"tolerance", tolerance},
                      {"tessel_spread_pct", tessel.spread_pct},
                      {"baseline_spread_pct", base.spread_pct},
                      {"tessel_min_us", tessel.min_us},
                      {"baseline_min_us", base.min_us},
                      {"repeats", tessel.repeats},
                      {"threads", threads}};
  j["schedule"] = schedule;
  j["target"] = target;
  j["baseline_isa"] = baseline_isa;
  j["cache_flush"] = cache_flush;
  if (!openblas_core.empty()) j["openblas_core"] = openblas_core;
  return j;
}

void ResultPrinter::print(const CaseResult& result) {
  if (json_) {
    out_ << result.to_json().dump() << std::endl;
    return;
  }
  if (speedups_.empty()) print_table_header(out_);
  speedups_.push_back(result.speedup());
  out_ << table_row(result) << std::flush;
}

void ResultPrinter::finish() {
  if (json_ || speedups_.size() < 2) return;
  double log_sum = 0;
  for (double s : speedups_) log_sum += std::log(s);
  out_ << "geometric-mean speedup over " << speedups_.size() << " cases: "
       << format("%.2f\n", std::exp(log_sum / speedups_.size()));
}

}  // namespace tessel
