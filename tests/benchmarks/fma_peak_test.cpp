// The FMA peak benchmark: its chains compute what their arithmetic must give on every ISA the host
// runs, its operation count follows from the ISA, threads and chains, and a target above the host
// is refused. No assertion on speed: the machine is shared (bench peak reports the numbers).
#include <catch2/catch.hpp>

#include "benchmarks/fma_peak.h"
#include "support/error.h"

using namespace tessel;

namespace {

Target target_of(const char* isa, int threads) {
  return Target::parse(std::string("llvm_cpu -isa=") + isa + " -threads=" + std::to_string(threads));
}

bool host_runs(CpuIsa isa) { return host_cpu().isa >= isa; }

}  // namespace

TEST_CASE("the peak's chains end where their arithmetic says, on each ISA the host runs", "[fma_peak]") {
  for (CpuIsa isa : {CpuIsa::SSE4, CpuIsa::AVX2, CpuIsa::AVX512}) {
    if (!host_runs(isa)) continue;
    for (int threads : {1, 2}) {
      PeakResult p = measure_fma_peak(target_of(isa_name(isa), threads), 1);
      INFO(isa_name(isa) << ", " << threads << " threads");
      CHECK(p.checked);
      CHECK(p.isa == isa_name(isa));
      CHECK(p.threads == threads);
      // two operations a lane, per chain, iteration (2^20) and thread
      CHECK(p.flops == 2.0 * (isa_vector_bits(isa) / 32) * p.chains * double(1 << 20) * threads);
      CHECK(p.time.repeats == 1);
      CHECK(p.gflops() > 0);
    }
  }
}

TEST_CASE("a single sample of the peak runs the checked chains on the target's threads", "[fma_peak]") {
  CHECK(sample_fma_peak_gflops(target_of("sse4", 2)) > 0);
  CHECK(sample_fma_peak_gflops(target_of(isa_name(host_cpu().isa), 1)) > 0);
}

TEST_CASE("the peak of an ISA above the host's is refused, naming the ISAs", "[fma_peak]") {
  if (host_runs(CpuIsa::AVX512)) return;
  CHECK_THROWS_WITH(measure_fma_peak(target_of("avx512", 1), 1), Catch::Contains("needs avx512"));
}

TEST_CASE("the peak needs at least one sample", "[fma_peak]") {
  CHECK_THROWS_AS(measure_fma_peak(target_of("sse4", 1), 0), UserError);
}
