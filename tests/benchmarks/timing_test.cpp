// Timing statistics: what summarize computes, and that measure's numbers hang together.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "support/error.h"
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

TEST_CASE("measure_each_after times one call per sample, each right after an untimed prepare", "[timing]") {
  std::string order;
  TimingStats stats = measure_each_after([&] { order += 'f'; }, [&] { order += 'p'; }, 2, 3);
  CHECK(order == "pfpfpfpfpf");  // 2 warm-up calls, then 3 samples: every call prepared
  CHECK(stats.repeats == 3);
  // Untimed: a slow prepare does not reach the samples.
  auto sleep_2ms = [] { std::this_thread::sleep_for(std::chrono::milliseconds(2)); };
  CHECK(measure_each_after([] {}, sleep_2ms, 0, 5).median_us < 1000);
}

TEST_CASE("evicting a range from the caches keeps its data, whatever its alignment", "[timing]") {
  if (!can_evict_from_caches()) {
    CHECK_THROWS_AS(evict_from_caches(nullptr, 0), UserError);  // says so instead
    return;
  }
  std::vector<char> bytes(10000);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7);
  evict_from_caches(bytes.data() + 3, 5000);  // starts and ends inside a line
  evict_from_caches(bytes.data(), 0);
  for (size_t i = 0; i < bytes.size(); ++i) REQUIRE(bytes[i] == static_cast<char>(i * 7));
}
