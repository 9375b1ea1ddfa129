// Wall-clock measurement: see timing.h.
#include "support/timing.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "support/error.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TESSEL_HAS_CLFLUSH 1
#else
#define TESSEL_HAS_CLFLUSH 0
#endif

namespace tessel {

namespace {

using Clock = std::chrono::steady_clock;

double elapsed_us(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

double median_of_sorted(const std::vector<double>& sorted) {
  size_t n = sorted.size();
  return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

}  // namespace

double time_sample_us(const std::function<void()>& fn, int calls) {
  auto start = Clock::now();
  for (int i = 0; i < calls; ++i) fn();
  return elapsed_us(start) / calls;
}

int calls_per_sample(const std::function<void()>& fn, double min_sample_us) {
  // One call is often slower than the steady state (cold caches, lazy setup), so the estimate
  // would undercount; the sample loop still holds because a sample only has to reach the minimum.
  double one_call_us = std::max(time_sample_us(fn, 1), 0.01);
  if (one_call_us >= min_sample_us) return 1;
  double per_call_us = std::max(time_sample_us(fn, static_cast<int>(std::ceil(min_sample_us / one_call_us))), 0.01);
  return std::max(1, static_cast<int>(std::ceil(min_sample_us / per_call_us)));
}

TimingStats summarize(std::vector<double> samples_us) {
  TESSEL_CHECK(!samples_us.empty(), "no timing samples");
  std::sort(samples_us.begin(), samples_us.end());
  TimingStats stats;
  stats.median_us = median_of_sorted(samples_us);
  stats.min_us = samples_us.front();
  stats.max_us = samples_us.back();
  stats.spread_pct = stats.median_us > 0 ? (stats.max_us - stats.min_us) / stats.median_us * 100 : 0;
  stats.repeats = static_cast<int>(samples_us.size());
  return stats;
}

TimingStats measure(const std::function<void()>& fn, int warmup, int repeats) {
  TESSEL_CHECK(repeats >= 1, "measure needs at least one repeat, got ", repeats);
  for (int i = 0; i < warmup; ++i) fn();
  int calls = calls_per_sample(fn);
  std::vector<double> samples;
  samples.reserve(repeats);
  for (int r = 0; r < repeats; ++r) samples.push_back(time_sample_us(fn, calls));
  return summarize(std::move(samples));
}

TimingStats measure_each_after(const std::function<void()>& fn, const std::function<void()>& prepare, int warmup,
                               int repeats) {
  TESSEL_CHECK(repeats >= 1, "measure needs at least one repeat, got ", repeats);
  for (int i = 0; i < warmup; ++i) {
    prepare();
    fn();
  }
  std::vector<double> samples;
  samples.reserve(repeats);
  for (int r = 0; r < repeats; ++r) {
    prepare();
    samples.push_back(time_sample_us(fn, 1));
  }
  return summarize(std::move(samples));
}

bool can_evict_from_caches() { return TESSEL_HAS_CLFLUSH; }

void evict_from_caches(const void* data, size_t bytes) {
#if TESSEL_HAS_CLFLUSH
  constexpr size_t kLine = 64;  // clflush evicts the whole line of any address in it
  const char* begin = static_cast<const char*>(data);
  for (size_t offset = 0; offset < bytes; offset += kLine) _mm_clflush(begin + offset);
  if (bytes) _mm_clflush(begin + bytes - 1);
  _mm_mfence();  // the evictions complete before the timed work starts
#else
  user_error("evicting data from the CPU caches needs x86's clflush; this machine has none");
#endif
}

}  // namespace tessel
