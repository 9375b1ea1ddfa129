// The benchmark cases: each draws the operator's inputs from fixed seeds, prepares Tessel and the
// vendor baseline on them, and hands both to compare_kernels (bench_runner.cpp).
#include "benchmarks/baselines/onednn.h"
#include "benchmarks/baselines/openblas.h"
#include "benchmarks/bench_runner.h"
#include "benchmarks/tessel_kernels.h"
#include "ops/conv2d_winograd.h"

namespace tessel {

namespace {

constexpr uint32_t kFirstInputSeed = 2018;  // the TVM paper's year
constexpr uint32_t kSecondInputSeed = 2019;

OperatorInputs seeded_inputs(int64_t first_elements, int64_t second_elements) {
  return {random_tensor(first_elements, kFirstInputSeed), random_tensor(second_elements, kSecondInputSeed)};
}

// Tessel's target with the benchmark's thread count.
Target tessel_target(const BenchOptions& options) { return options.target.with_threads(options.threads); }

template <typename Shape>
CaseSpec conv_like_spec(const char* op, const Workload<Shape>& workload) {
  const Shape& s = workload.shape;
  return {op, workload.name, describe(s), s.flops(), s.output_elements(), s.reduction_size()};
}

TesselSchedule schedule_of(const std::string& workload, const BenchOptions& options) {
  TesselSchedule schedule = options.schedule_for ? options.schedule_for(workload) : TesselSchedule{};
  if (!schedule.build) schedule.build = default_kernel_builder(tessel_target(options));
  return schedule;
}

CaseResult labelled(CaseResult result, const TesselSchedule& schedule, const BenchOptions& options,
                    std::string baseline_isa) {
  result.schedule = schedule.label;
  result.target = options.target.key();
  result.baseline_isa = std::move(baseline_isa);
  return result;
}

}  // namespace

OperatorInputs random_inputs(const GemmShape& s) { return seeded_inputs(s.m * s.k, s.k * s.n); }
OperatorInputs random_inputs(const Conv2dShape& s) {
  return seeded_inputs(s.n * s.c * s.h * s.w, s.oc * s.reduction_size());
}
OperatorInputs random_inputs(const DepthwiseShape& s) { return seeded_inputs(s.n * s.c * s.h * s.w, s.c * s.k * s.k); }

PreparedKernel prepare_baseline(const GemmShape& s, const OperatorInputs& in, int threads) {
  return prepare_openblas_gemm(s, in.first.data(), in.second.data(), threads);
}
PreparedKernel prepare_baseline(const Conv2dShape& s, const OperatorInputs& in, int threads) {
  return prepare_onednn_conv2d(s, in.first.data(), in.second.data(), threads);
}
PreparedKernel prepare_baseline(const DepthwiseShape& s, const OperatorInputs& in, int threads) {
  return prepare_onednn_depthwise(s, in.first.data(), in.second.data(), threads);
}

CaseResult run_gemm_case(const std::string& workload, const GemmShape& shape, const BenchOptions& options) {
  validate(shape);
  OperatorInputs in = random_inputs(shape);
  CaseSpec spec{"gemm", workload, describe(shape), shape.flops(), shape.m * shape.n, shape.k};
  TesselSchedule schedule = schedule_of(workload, options);
  PreparedKernel tessel =
      prepare_tessel_gemm(shape, in.first.data(), in.second.data(), tessel_target(options), schedule.build);
  PreparedKernel baseline = prepare_baseline(shape, in, options.threads);
  CaseResult result =
      labelled(compare_kernels(spec, tessel, baseline, options), schedule, options, openblas_corename());
  result.openblas_core = result.baseline_isa;
  return result;
}

// The Winograd tile of a case --winograd runs that way, or 0: ops::winograd_tile's, 2 where it
// would keep the direct convolution.
int64_t winograd_case_tile(const Conv2dShape& s, const BenchOptions& options) {
  bool fits = s.kh == 3 && s.kw == 3 && s.stride == 1 && s.dilation == 1 && s.groups == 1;
  if (!options.winograd || !fits) return 0;
  int64_t m = ops::winograd_tile(s.c, s.oc, s.out_h(), s.out_w());
  return m ? m : 2;
}

CaseResult run_conv2d_case(const Workload<Conv2dShape>& workload, const BenchOptions& options) {
  const Conv2dShape& s = workload.shape;
  validate(s);
  OperatorInputs in = random_inputs(s);
  if (int64_t m = winograd_case_tile(s, options)) {
    PreparedKernel tessel = prepare_tessel_winograd(s, m, in.first.data(), in.second.data(), tessel_target(options));
    PreparedKernel baseline = prepare_baseline(s, in, options.threads);
    TesselSchedule winograd{nullptr, "winograd" + std::to_string(m)};
    return labelled(compare_kernels(conv_like_spec("conv2d", workload), tessel, baseline, options), winograd, options,
                    onednn_isa_name());
  }
  TesselSchedule schedule = schedule_of(workload.name, options);
  PreparedKernel tessel =
      prepare_tessel_conv2d(s, in.first.data(), in.second.data(), tessel_target(options), schedule.build);
  PreparedKernel baseline = prepare_baseline(s, in, options.threads);
  return labelled(compare_kernels(conv_like_spec("conv2d", workload), tessel, baseline, options), schedule, options,
                  onednn_isa_name());
}

CaseResult run_depthwise_case(const Workload<DepthwiseShape>& workload, const BenchOptions& options) {
  const DepthwiseShape& s = workload.shape;
  validate(s);
  OperatorInputs in = random_inputs(s);
  TesselSchedule schedule = schedule_of(workload.name, options);
  PreparedKernel tessel =
      prepare_tessel_depthwise(s, in.first.data(), in.second.data(), tessel_target(options), schedule.build);
  PreparedKernel baseline = prepare_baseline(s, in, options.threads);
  return labelled(compare_kernels(conv_like_spec("depthwise", workload), tessel, baseline, options), schedule,
                  options, onednn_isa_name());
}

}  // namespace tessel
