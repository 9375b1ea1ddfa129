// Timing statistics: what summarize computes, and that measure's numbers hang together.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "support/timing.h"

using namespace tessel;

TEST_CASE("summarize gives median, extremes and spread over the median", "[timing]") {
  TimingStats odd = summarize({30, 10, 20});
  CHECK(odd.median_us == 20);
  CHECK(odd.min_us == 10);
  CHECK(odd.max_us == 30);
  CHECK(odd.spread_pct == Approx(100));
  CHECK(odd.repeats == 3);
  TimingStats even = summarize({4, 1, 3, 2});
  CHECK(even.median_us == 2.5);
  TimingStats one = summarize({7});
  CHECK((one.median_us == 7 && one.spread_pct == 0));
}

TEST_CASE("measure repeats short work until a sample lasts ~1 ms", "[timing]") {
  int calls = 0;
  volatile double sink = 0;
  auto work = [&] {
    ++calls;
    for (int i = 0; i < 200; ++i) sink = sink + i;
  };
  TimingStats stats = measure(work, 2, 5);
  CHECK(stats.repeats == 5);
  CHECK(stats.min_us > 0);
  CHECK(stats.min_us <= stats.median_us);
  CHECK(stats.median_us <= stats.max_us);
  CHECK(stats.spread_pct >= 0);
  CHECK(stats.median_us < kMinSampleUs);
  CHECK(calls > 5 * 10);  // each sample ran the sub-microsecond work many times
}

TEST_CASE("measure times slow work one call per sample", "[timing]") {
  auto sleep_2ms = [] { std::this_thread::sleep_for(std::chrono::milliseconds(2)); };
  CHECK(calls_per_sample(sleep_2ms) == 1);
  TimingStats stats = measure(sleep_2ms, 0, 3);
  CHECK(stats.min_us >= 2000);
  CHECK(stats.median_us <= stats.max_us);
}
