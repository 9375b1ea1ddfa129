// The machine's measured floating-point peak: every thread runs independent chains of vector
// FMAs on registers alone, no memory traffic. It is the ceiling that the GFLOP/s of a benchmark or
// of a model's kernels (`bench-model --profile`) is read against. The vendor's sheet would give a
// clock that a shared VM does not keep, so this peak is measured, not computed.
//
//   PeakResult p = measure_fma_peak(Target::parse("llvm_cpu -isa=avx2 -threads=2"), 15);
//   std::printf("%.1f GFLOP/s on %d threads\n", p.gflops(), p.threads);
#pragma once
#include <cstdint>
#include <string>

#include "support/timing.h"
#include "target/target.h"

namespace tessel {

struct PeakResult {
  std::string isa;       // the vector ISA the chains ran: "avx512", "avx2", "sse4"
  int threads = 0;
  int chains = 0;        // independent accumulator registers per thread
  double flops = 0;      // floating-point operations of one sample (all threads)
  TimingStats time;      // per sample
  bool checked = false;  // every chain ended at the value its arithmetic must give

  double gflops() const { return flops / time.median_us * 1e-3; }
};

// Peak single-precision GFLOP/s of `target`'s vector ISA on its thread count (target.cpu().threads),
// over `repeats` samples (each a few milliseconds) after a 0.1 s warm-up. 12 chains per thread:
// 1.5 x the 8 that two FMA pipes of latency 4 keep busy, within AVX2's 16 registers. SSE4 has no
// FMA and counts a multiply and an add. The target must run on this machine
// (Target::check_runs_here).
PeakResult measure_fma_peak(const Target& target, int repeats);

// One sample of that peak, after one untimed run: what a benchmark of something else takes
// between its own samples, to report the peak the machine gave during its run (on a shared VM,
// 2 threads sometimes deliver one core's FMA throughput). InternalError if a chain ends wrong.
double sample_fma_peak_gflops(const Target& target);

}  // namespace tessel
