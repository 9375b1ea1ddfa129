// The runtime thread pool: coverage of every index exactly once, many small back-to-back jobs,
// slices and their balancing when one thread stalls, empty ranges, exceptions, nesting, concurrent
// callers, thread-count changes, and use in a forked child (where the parent's workers do not exist).
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "runtime/thread_pool.h"
#include "support/error.h"

using namespace tessel;

namespace {

// Restores one of the pool's process-wide settings when the test ends.
template <int (*get)(), void (*set)(int)>
struct SettingGuard {
  int saved = get();
  ~SettingGuard() { set(saved); }
};
using ThreadCountGuard = SettingGuard<num_threads, set_num_threads>;
using SlicesGuard = SettingGuard<slices_per_thread, set_slices_per_thread>;

// Runs parallel_for(n) and returns how often each index was visited.
std::vector<int> visit_counts(int64_t n) {
  std::vector<std::atomic<int>> counts(n);
  parallel_for(n, [&](int64_t i) { counts[i].fetch_add(1); });
  return std::vector<int>(counts.begin(), counts.end());
}

}  // namespace

TEST_CASE("parallel_for visits every index exactly once for any thread count", "[thread_pool]") {
  ThreadCountGuard guard;
  for (int threads : {1, 2, 4, 7}) {
    set_num_threads(threads);
    CHECK(num_threads() == threads);
    for (int64_t n : {1, 2, 3, 5, 8, 1000}) {
      std::vector<int> counts = visit_counts(n);
      CHECK(std::count(counts.begin(), counts.end(), 1) == n);
    }
  }
}

TEST_CASE("many small parallel_for calls in a row all complete", "[thread_pool]") {
  ThreadCountGuard guard;
  set_num_threads(2);
  std::atomic<int64_t> total{0};
  for (int round = 0; round < 5000; ++round) parallel_for(3, [&](int64_t i) { total.fetch_add(i + 1); });
  CHECK(total.load() == 5000 * 6);
}

TEST_CASE("empty and negative ranges do nothing", "[thread_pool]") {
  int calls = 0;
  parallel_for(0, [&](int64_t) { ++calls; });
  parallel_for(-5, [&](int64_t) { ++calls; });
  CHECK(calls == 0);
}

TEST_CASE("an exception in a task reaches the caller after all chunks finish", "[thread_pool][errors]") {
  ThreadCountGuard guard;
  set_num_threads(2);
  std::atomic<int> ran{0};
  auto throwing = [&](int64_t i) {
    ran.fetch_add(1);
    if (i == 7) throw std::runtime_error("task 7 failed");
  };
  CHECK_THROWS_WITH(parallel_for(100, throwing), "task 7 failed");
  CHECK(ran.load() >= 8);
  // the pool still works afterwards
  std::vector<int> counts = visit_counts(50);
  CHECK(std::count(counts.begin(), counts.end(), 1) == 50);
}

TEST_CASE("nested and concurrent parallel_for calls run serially instead of deadlocking", "[thread_pool]") {
  ThreadCountGuard guard;
  set_num_threads(2);
  std::vector<std::atomic<int>> counts(8 * 8);
  parallel_for(8, [&](int64_t i) { parallel_for(8, [&](int64_t j) { counts[i * 8 + j].fetch_add(1); }); });
  for (auto& c : counts) CHECK(c.load() == 1);

  std::vector<std::atomic<int64_t>> sums(4);
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&, t] {
      for (int round = 0; round < 200; ++round) parallel_for(10, [&](int64_t i) { sums[t].fetch_add(i); });
    });
  for (auto& c : callers) c.join();
  for (auto& s : sums) CHECK(s.load() == 200 * 45);
}

TEST_CASE("invalid thread counts are user errors", "[thread_pool][errors]") {
  CHECK_THROWS_AS(set_num_threads(0), UserError);
  ThreadCountGuard guard;
  set_num_threads(2);
  CHECK_THROWS_AS(parallel_for(4, [](int64_t) { set_num_threads(3); }), UserError);
}

TEST_CASE("a forked child runs parallel_for on a pool of its own", "[thread_pool]") {
  ThreadCountGuard guard;
  set_num_threads(2);
  visit_counts(10);  // the parent's pool exists and has a worker
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    alarm(10);  // a hang (workers waited for that do not exist) fails instead of blocking
    std::vector<int> counts = visit_counts(1000);
    _exit(std::count(counts.begin(), counts.end(), 1) == 1000 ? 0 : 1);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

namespace {

using Range = std::pair<int64_t, int64_t>;

// The ranges parallel_for_range(n) hands out, sorted, with the iterations the calling thread ran.
struct HandedOut {
  std::vector<Range> ranges;
  int64_t on_caller = 0;
};

HandedOut hand_out(int64_t n, const std::function<void(Range)>& also = {}) {
  struct State {
    std::mutex m;
    HandedOut out;
    std::thread::id caller = std::this_thread::get_id();
    const std::function<void(Range)>* also;
  } state;
  state.also = &also;
  auto record = [](int64_t begin, int64_t end, void* d) {
    auto* s = static_cast<State*>(d);
    if (*s->also) (*s->also)({begin, end});
    std::lock_guard<std::mutex> lock(s->m);
    s->out.ranges.push_back({begin, end});
    if (std::this_thread::get_id() == s->caller) s->out.on_caller += end - begin;
  };
  parallel_for_range(n, record, &state);
  std::sort(state.out.ranges.begin(), state.out.ranges.end());
  return state.out;
}

// The ranges are non-empty and tile [0, n) exactly.
void check_tiles(const std::vector<Range>& ranges, int64_t n) {
  int64_t next = 0;
  for (auto [begin, end] : ranges) {
    CHECK(begin == next);
    CHECK(end > begin);
    next = end;
  }
  CHECK(next == n);
}

}  // namespace

TEST_CASE("parallel_for_range hands out non-empty slices that tile the range", "[thread_pool]") {
  ThreadCountGuard threads_guard;
  SlicesGuard slices_guard;
  for (int slices : {1, 3, 8}) {
    set_slices_per_thread(slices);
    CHECK(slices_per_thread() == slices);
    for (int threads : {1, 2, 3}) {
      set_num_threads(threads);
      for (int64_t n : {1, 2, 5, 1001}) {
        HandedOut out = hand_out(n);
        check_tiles(out.ranges, n);
        // One call per share at 1. Otherwise `slices` per share (slices rounded up), and one more
        // where a thief's slices from the back meet the owner's from the front mid-slice.
        size_t bound = slices == 1 ? threads : threads * (slices + 1);
        CHECK(out.ranges.size() <= bound);
      }
    }
  }
  CHECK_THROWS_AS(set_slices_per_thread(0), UserError);
}

TEST_CASE("a thread done with its share takes slices from a slowed one", "[thread_pool]") {
  ThreadCountGuard threads_guard;
  SlicesGuard slices_guard;
  set_num_threads(2);
  const int64_t n = 64;  // shares [0, 32) for the caller and [32, 64) for the worker
  std::thread::id caller = std::this_thread::get_id();
  auto slow_worker = [&](Range r) {  // the worker's first slice stalls, as on a core another tenant took
    if (std::this_thread::get_id() != caller && r.first == 32)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
  };
  set_slices_per_thread(8);
  HandedOut sliced = hand_out(n, slow_worker);
  check_tiles(sliced.ranges, n);
  CHECK(sliced.on_caller > 32);  // the worker's share but its stalled slice (or all, if it woke late)
  // one slice per share: the caller runs its own share, or the worker's too if the worker woke late
  set_slices_per_thread(1);
  HandedOut whole = hand_out(n, slow_worker);
  check_tiles(whole.ranges, n);
  CHECK((whole.on_caller == 32 || whole.on_caller == 64));
}
