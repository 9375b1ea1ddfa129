// Vendor baselines of tuning workloads (tools/vendor_baseline.h): the benchmark's baseline kernel
// on the benchmark's inputs (benchmarks/bench_runner.h), timed like a candidate.
#include "tools/vendor_baseline.h"

#include "benchmarks/bench_runner.h"
#include "support/timing.h"

namespace tessel::tools {

search::Baseline measure_vendor_baseline(const search::WorkloadSpec& workload, int threads) {
  PreparedKernel kernel = std::visit(
      [threads](const auto& shape) { return prepare_baseline(shape, random_inputs(shape), threads); }, workload.shape);
  return {kernel.name, measure(kernel.run, 3, 7).median_us};
}

}  // namespace tessel::tools
