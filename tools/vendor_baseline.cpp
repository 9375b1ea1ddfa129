// Vendor baselines of tuning workloads (tools/vendor_baseline.h).
#include "tools/vendor_baseline.h"

#include "benchmarks/baselines/onednn.h"
#include "benchmarks/baselines/openblas.h"
#include "benchmarks/bench_runner.h"
#include "support/timing.h"

namespace tessel::tools {

namespace {

constexpr uint32_t kSeed = 2018;

// The baseline kernel of each operator, on uniform random inputs.
struct Prepare {
  int threads;
  PreparedKernel operator()(const GemmShape& s) const {
    return prepare_openblas_gemm(s, random_tensor(s.m * s.k, kSeed).data(), random_tensor(s.k * s.n, kSeed + 1).data(),
                                 threads);
  }
  PreparedKernel operator()(const Conv2dShape& s) const {
    return prepare_onednn_conv2d(s, random_tensor(s.n * s.c * s.h * s.w, kSeed).data(),
                                 random_tensor(s.oc * s.reduction_size(), kSeed + 1).data(), threads);
  }
  PreparedKernel operator()(const DepthwiseShape& s) const {
    return prepare_onednn_depthwise(s, random_tensor(s.n * s.c * s.h * s.w, kSeed).data(),
                                    random_tensor(s.c * s.k * s.k, kSeed + 1).data(), threads);
  }
};

}  // namespace

search::Baseline measure_vendor_baseline(const search::WorkloadSpec& workload, int threads) {
  PreparedKernel kernel = std::visit(Prepare{threads}, workload.shape);
  return {kernel.name, measure(kernel.run, 3, 7).median_us};
}

}  // namespace tessel::tools
