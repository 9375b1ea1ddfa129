// Measured vector FMA peak (benchmarks/fma_peak.h). Each ISA's chains are a function compiled for
// that ISA alone (a target attribute), so one binary measures any level the host supports.
#include "benchmarks/fma_peak.h"

#include <immintrin.h>

#include <array>
#include <functional>
#include <vector>

#include "runtime/thread_pool.h"
#include "support/error.h"

namespace tessel {

namespace {

// 1.5x the 8 chains that two FMA pipes of latency 4 keep busy (every current x86 core with FMA):
// slack for the loop's own instructions, and 12 + the two operands fit AVX2's 16 registers.
constexpr int kChains = 12;
// Iterations of all chains per thread and sample: 2^20 keeps a sample at a few milliseconds, and
// the chains' sums exact in fp32 (below).
constexpr int64_t kIterations = int64_t(1) << 20;
// Each iteration computes acc = acc * 1 + 2^-10; chain i starts at i, so it ends at exactly
// i + kIterations / 1024, which stays below 2^13, where fp32 still represents a step of 2^-10.
constexpr float kStep = 1.0f / 1024;

// Untimed runs before the samples (~0.1 s).
constexpr int kWarmupRuns = 50;

using ChainEnds = std::array<float, kChains>;

__attribute__((target("avx512f"))) void avx512_chains(float multiplier, float step, ChainEnds& ends) {
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_ps(float(i));
  __m512 m = _mm512_set1_ps(multiplier), a = _mm512_set1_ps(step);
  for (int64_t it = 0; it < kIterations; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_fmadd_ps(acc[i], m, a);
  }
  for (int i = 0; i < kChains; ++i) ends[i] = _mm512_cvtss_f32(acc[i]);
}

__attribute__((target("avx2,fma"))) void avx2_chains(float multiplier, float step, ChainEnds& ends) {
  __m256 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm256_set1_ps(float(i));
  __m256 m = _mm256_set1_ps(multiplier), a = _mm256_set1_ps(step);
  for (int64_t it = 0; it < kIterations; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) acc[i] = _mm256_fmadd_ps(acc[i], m, a);
  }
  for (int i = 0; i < kChains; ++i) ends[i] = _mm256_cvtss_f32(acc[i]);
}

__attribute__((target("sse4.1"))) void sse4_chains(float multiplier, float step, ChainEnds& ends) {
  __m128 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm_set1_ps(float(i));
  __m128 m = _mm_set1_ps(multiplier), a = _mm_set1_ps(step);
  for (int64_t it = 0; it < kIterations; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) acc[i] = _mm_add_ps(_mm_mul_ps(acc[i], m), a);
  }
  for (int i = 0; i < kChains; ++i) ends[i] = _mm_cvtss_f32(acc[i]);
}

using ChainsFn = void (*)(float, float, ChainEnds&);

ChainsFn chains_for(CpuIsa isa) {
  if (isa == CpuIsa::AVX512) return avx512_chains;
  return isa == CpuIsa::AVX2 ? avx2_chains : sse4_chains;
}

bool chains_ended_right(const std::vector<ChainEnds>& ends) {
  for (const ChainEnds& e : ends)
    for (int i = 0; i < kChains; ++i)
      if (e[i] != float(i) + float(kIterations) * kStep) return false;
  return true;
}

// The chains of `cpu`'s ISA, once on each of its threads.
struct PeakRun {
  explicit PeakRun(const CpuDescription& cpu) : chains(chains_for(cpu.isa)), ends(cpu.threads) {
    volatile float one = 1.0f;  // read at run time, so the compiler cannot fold the multiply away
    multiplier = one;
    set_num_threads(cpu.threads);
  }
  PeakRun(const PeakRun&) = delete;  // timed through std::ref: the chains' ends are checked here
  void operator()() {
    parallel_for(int64_t(ends.size()), [this](int64_t t) { chains(multiplier, kStep, ends[t]); });
  }
  // Operations of one run: an FMA is two a lane, as is SSE4's multiply and add.
  static double flops(const CpuDescription& cpu) {
    return 2.0 * cpu.lanes(32) * kChains * double(kIterations) * cpu.threads;
  }

  ChainsFn chains;
  float multiplier = 0;
  std::vector<ChainEnds> ends;  // one per thread
};

}  // namespace

PeakResult measure_fma_peak(const Target& target, int repeats) {
  target.check_runs_here("bench peak");
  if (repeats < 1) user_error("bench peak: --repeats must be at least 1, got ", repeats);
  const CpuDescription& cpu = target.cpu();
  PeakRun run(cpu);
  PeakResult result;
  result.isa = isa_name(cpu.isa);
  result.threads = cpu.threads;
  result.chains = kChains;
  result.flops = PeakRun::flops(cpu);
  // A long warm-up: in the first tens of milliseconds of a new pool, Linux sometimes runs its
  // worker on the caller's CPU (measured: 2-thread runs at one core's rate in 1-9 of the first 30).
  result.time = measure(std::ref(run), kWarmupRuns, repeats);
  result.checked = chains_ended_right(run.ends);
  return result;
}

double sample_fma_peak_gflops(const Target& target) {
  target.check_runs_here("the FMA peak");
  PeakRun run(target.cpu());
  run();
  double us = time_sample_us(std::ref(run), 1);
  TESSEL_CHECK(chains_ended_right(run.ends), "the FMA peak's chains did not compute what they must");
  return PeakRun::flops(target.cpu()) / us * 1e-3;
}

}  // namespace tessel
