// The machine's measured read bandwidth from memory: every thread streams its share of a buffer
// four times the last-level cache with the target ISA's vector loads (as the kernels read their
// weights), so that each sample's reads come from DRAM, as a model's weights do between two calls
// of a layer (the other layers' weights pass through the caches in between).
// It is the other ceiling of a roofline beside the FMA peak (benchmarks/fma_peak.h): a kernel that
// reads W bytes of weights takes at least about W over it when they come from memory. On a shared
// VM the rate is what the host gives this guest, not the sheet's; so it is measured.
//
//   BandwidthResult b = measure_read_bandwidth(Target::parse("llvm_cpu -threads=2"), 5);
//   std::printf("%.1f GB/s on %d threads\n", b.gbs(), b.threads);
#pragma once
#include <cstdint>

#include "support/timing.h"
#include "target/target.h"

namespace tessel {

struct BandwidthResult {
  int threads = 0;
  int64_t bytes = 0;     // read in one sample (the whole buffer, once)
  TimingStats time;  // per sample

  double gbs() const { return double(bytes) / time.median_us * 1e-3; }
};

// Read bandwidth from memory in GB/s on the target's threads (target.cpu().threads), over `repeats`
// samples after one untimed one. The buffer is max(4 x the target's L3, 64 MiB). The target must
// run on this machine (Target::check_runs_here); UserError if repeats < 1, InternalError if the
// threads did not read what the buffer holds.
BandwidthResult measure_read_bandwidth(const Target& target, int repeats);

}  // namespace tessel
