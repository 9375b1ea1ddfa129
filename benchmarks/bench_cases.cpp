// The benchmark cases: each draws the operator's inputs from fixed seeds, prepares Tessel and the
// vendor baseline on them, and hands both to compare_kernels (bench_runner.cpp).
#include "benchmarks/baselines/onednn.h"
#include "benchmarks/baselines/openblas.h"
#include "benchmarks/bench_runner.h"
#include "benchmarks/tessel_kernels.h"

namespace tessel {

namespace {

constexpr uint32_t kFirstInputSeed = 2018;  // the TVM paper's year
constexpr uint32_t kSecondInputSeed = 2019;

template <typename Shape>
CaseSpec conv_like_spec(const char* op, const Workload<Shape>& workload) {
  const Shape& s = workload.shape;
  return {op, workload.name, describe(s), s.flops(), s.output_elements(), s.reduction_size()};
}

TesselSchedule schedule_of(const std::string& workload, const BenchOptions& options) {
  return options.schedule_for ? options.schedule_for(workload) : TesselSchedule{};
}

CaseResult with_schedule(CaseResult result, const TesselSchedule& schedule) {
  result.schedule = schedule.label;
  return result;
}

}  // namespace

CaseResult run_gemm_case(const std::string& workload, const GemmShape& shape, const BenchOptions& options) {
  validate(shape);
  std::vector<float> a = random_tensor(shape.m * shape.k, kFirstInputSeed);
  std::vector<float> b = random_tensor(shape.k * shape.n, kSecondInputSeed);
  CaseSpec spec{"gemm", workload, describe(shape), shape.flops(), shape.m * shape.n, shape.k};
  TesselSchedule schedule = schedule_of(workload, options);
  PreparedKernel tessel = prepare_tessel_gemm(shape, a.data(), b.data(), options.threads, schedule.build);
  PreparedKernel baseline = prepare_openblas_gemm(shape, a.data(), b.data(), options.threads);
  CaseResult result = with_schedule(compare_kernels(spec, tessel, baseline, options), schedule);
  result.openblas_core = openblas_corename();
  return result;
}

CaseResult run_conv2d_case(const Workload<Conv2dShape>& workload, const BenchOptions& options) {
  const Conv2dShape& s = workload.shape;
  validate(s);
  std::vector<float> x = random_tensor(s.n * s.c * s.h * s.w, kFirstInputSeed);
  std::vector<float> w = random_tensor(s.oc * s.reduction_size(), kSecondInputSeed);
  TesselSchedule schedule = schedule_of(workload.name, options);
  PreparedKernel tessel = prepare_tessel_conv2d(s, x.data(), w.data(), options.threads, schedule.build);
  PreparedKernel baseline = prepare_onednn_conv2d(s, x.data(), w.data(), options.threads);
  return with_schedule(compare_kernels(conv_like_spec("conv2d", workload), tessel, baseline, options), schedule);
}

CaseResult run_depthwise_case(const Workload<DepthwiseShape>& workload, const BenchOptions& options) {
  const DepthwiseShape& s = workload.shape;
  validate(s);
  std::vector<float> x = random_tensor(s.n * s.c * s.h * s.w, kFirstInputSeed);
  std::vector<float> w = random_tensor(s.c * s.k * s.k, kSecondInputSeed);
  TesselSchedule schedule = schedule_of(workload.name, options);
  PreparedKernel tessel = prepare_tessel_depthwise(s, x.data(), w.data(), options.threads, schedule.build);
  PreparedKernel baseline = prepare_onednn_depthwise(s, x.data(), w.data(), options.threads);
  return with_schedule(compare_kernels(conv_like_spec("depthwise", workload), tessel, baseline, options),
                       schedule);
}

}  // namespace tessel
