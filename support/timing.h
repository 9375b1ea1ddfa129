// Wall-clock measurement of a piece of work, for the benchmarks and the tuner's measurer. A sample
// runs the work enough times back to back to last at least ~1 ms, so steady_clock's resolution and
// the call overhead vanish from fast kernels; the statistics are over samples, reported per call.
#pragma once
#include <cstddef>
#include <functional>
#include <vector>

namespace tessel {

struct TimingStats {
  double median_us = 0;   // per call
  double min_us = 0;
  double max_us = 0;
  double spread_pct = 0;  // (max - min) / median * 100: the whole range, so one noisy sample shows
  int repeats = 0;        // number of samples
};

// Shortest time one sample should last; shorter work is repeated within a sample.
inline constexpr double kMinSampleUs = 1000.0;

// How many calls of fn make one sample last at least min_sample_us (fn is called to find out).
int calls_per_sample(const std::function<void()>& fn, double min_sample_us = kMinSampleUs);

// Time per call, in microseconds, of `calls` back-to-back calls of fn.
double time_sample_us(const std::function<void()>& fn, int calls);

// Median, min, max and spread of per-call samples; samples must not be empty.
TimingStats summarize(std::vector<double> samples_us);

// Calls fn `warmup` times untimed, then takes `repeats` samples (repeats >= 1).
TimingStats measure(const std::function<void()>& fn, int warmup, int repeats);

// As measure, but each sample is one call of fn right after an untimed call of `prepare` (a
// cache flush, say, which back-to-back calls would undo): repeats samples of one call each.
TimingStats measure_each_after(const std::function<void()>& fn, const std::function<void()>& prepare, int warmup,
                               int repeats);

// Writes back and evicts the cache lines of [data, data + bytes) from every level of this core's
// caches (x86 clflush), so that the next reads come from memory. Elsewhere it throws UserError.
void evict_from_caches(const void* data, size_t bytes);
// Whether evict_from_caches works on this machine.
bool can_evict_from_caches();

}  // namespace tessel
