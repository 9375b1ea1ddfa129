// A thread pool of static shares that balances at the end: each thread owns one contiguous share
// of a job and runs it front to back in slices; a thread done with its own share takes slices from
// the back of another's. Idle workers spin briefly, then sleep on a condition variable. One job
// runs at a time: the caller publishes it by bumping a generation counter, runs its share (and
// any it can take), and waits until every share is done.
#include "runtime/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include <pthread.h>

#include "support/error.h"

namespace tessel {
namespace {

// Spinning this many rounds catches back-to-back parallel loops without holding a shared core for
// long when the pool is idle: 30 us on the Xeon and 60 us on the Zen 3 measured, whose `pause`
// takes 15 and 30 ns (a condition variable's wake took 7 us there, with rare 5 ms outliers).
constexpr int kSpinRounds = 2000;

// Slices per share: enough that a thread done early can take a fair part of a slowed one's share,
// few enough that claiming stays a small cost next to a slice of a kernel's loop.
constexpr int kDefaultSlicesPerThread = 8;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Spins until done() holds or the spin budget runs out; returns done().
template <typename Pred>
bool spin_until(Pred done) {
  for (int i = 0; i < kSpinRounds; ++i) {
    if (done()) return true;
    cpu_relax();
  }
  return done();
}

// Set on pool workers and on a caller while it runs a job, so nested parallel loops run serially.
thread_local bool in_parallel_region = false;

struct Job {
  int64_t n = 0;
  ParallelRangeTask task = nullptr;
  void* data = nullptr;
};

// One thread's share of a job: the iterations [front, back) nobody has claimed yet, in one word so
// that its owner (taking slices from the front) and a thief (from the back) each claim with one
// compare-and-swap, and how many of its iterations are not finished yet. On a line of its own: the
// owner claims without touching another core's lines.
struct alignas(64) Share {
  std::atomic<uint64_t> unclaimed{0};
  std::atomic<int64_t> unfinished{0};
};

uint64_t pack_range(int64_t front, int64_t back) { return uint64_t(front) << 32 | uint64_t(back); }
int64_t range_front(uint64_t word) { return int64_t(word >> 32); }
int64_t range_back(uint64_t word) { return int64_t(word & 0xffffffffu); }

// Claims up to `slice` iterations of `share` from its front (its owner) or its back (a thief);
// returns the claimed [begin, end), empty when nothing is left.
std::pair<int64_t, int64_t> claim(Share& share, int64_t slice, bool from_front) {
  uint64_t word = share.unclaimed.load(std::memory_order_acquire);
  for (;;) {
    int64_t front = range_front(word), back = range_back(word);
    if (front >= back) return {0, 0};
    int64_t begin = from_front ? front : std::max(front, back - slice);
    int64_t end = from_front ? std::min(back, front + slice) : back;
    uint64_t rest = from_front ? pack_range(end, back) : pack_range(front, begin);
    if (share.unclaimed.compare_exchange_weak(word, rest, std::memory_order_acq_rel)) return {begin, end};
  }
}

// Thread t's share of a job is [n*t/T, n*(t+1)/T): the static partition, so that in a balanced run
// each thread touches the same iterations, and the same data, in every job of a model. A core
// slowed by another tenant then only delays the slices the others take from it, not the job.
class ThreadPool {
 public:
  explicit ThreadPool(int threads) : threads_(threads), shares_(threads) {
    for (int w = 1; w < threads; ++w) workers_.emplace_back([this, w] { worker_loop(w); });
  }

  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_cv_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  int threads() const { return threads_; }

  void run(int64_t n, ParallelRangeTask task, void* data, int slices_per_thread) {
    {
      // Every share of the earlier job is finished here, so nobody reads job_ or claims.
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = Job{n, task, data};
      error_ = nullptr;
      int64_t slices = int64_t(threads_) * slices_per_thread;  // rounded up: one slice per share at 1
      slice_.store((n + slices - 1) / slices, std::memory_order_relaxed);
      // Empty shares count as finished from the start (no claim will finish them), set before any
      // share is published: a worker late for the last job may already claim from this one.
      int empty_shares = 0;
      for (int t = 0; t < threads_; ++t) {
        int64_t size = share_back(n, t) - share_front(n, t);
        shares_[t].unfinished.store(size, std::memory_order_relaxed);
        empty_shares += size == 0;
      }
      finished_shares_.store(empty_shares, std::memory_order_relaxed);
      for (int t = 0; t < threads_; ++t)
        shares_[t].unclaimed.store(pack_range(share_front(n, t), share_back(n, t)), std::memory_order_release);
      generation_.store(generation_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    }
    wake_cv_.notify_all();
    run_slices(0);
    wait_for_shares();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  int64_t share_front(int64_t n, int t) const { return n * t / threads_; }
  int64_t share_back(int64_t n, int t) const { return share_front(n, t + 1); }

  void worker_loop(int self) {
    in_parallel_region = true;
    uint32_t seen = 0;
    for (;;) {
      auto has_news = [&] { return generation_.load(std::memory_order_acquire) != seen || stopping_.load(); };
      if (!spin_until(has_news)) {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_cv_.wait(lock, has_news);
      }
      if (stopping_.load()) return;
      seen = generation_.load(std::memory_order_acquire);
      run_slices(self);
    }
  }

  // Runs slices of this thread's own share, then of the others' (the next thread's first), until
  // no iteration is left unclaimed. A worker that wakes late for a job the caller has finished
  // finds every share empty (or, if a newer job began, works on that one, whose job_ it then reads).
  void run_slices(int self) {
    for (int k = 0; k < threads_; ++k) {
      int owner = (self + k) % threads_;
      for (;;) {
        auto [begin, end] = claim(shares_[owner], slice_.load(std::memory_order_relaxed), k == 0);
        if (begin == end) break;
        run_range(begin, end);
        finish(shares_[owner], end - begin);
      }
    }
  }

  void run_range(int64_t begin, int64_t end) {
    try {
      job_.task(begin, end, job_.data);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex_);
      if (!error_) error_ = std::current_exception();
    }
  }

  void finish(Share& share, int64_t iterations) {
    if (share.unfinished.fetch_sub(iterations, std::memory_order_acq_rel) != iterations) return;
    if (finished_shares_.fetch_add(1, std::memory_order_acq_rel) + 1 == threads_) {
      std::lock_guard<std::mutex> lock(mutex_);  // pairs with the waiter's predicate check
      done_cv_.notify_one();
    }
  }

  void wait_for_shares() {
    auto all_done = [&] { return finished_shares_.load(std::memory_order_acquire) == threads_; };
    if (spin_until(all_done)) return;
    std::unique_lock<std::mutex> lock(mutex_);
    done_cv_.wait(lock, all_done);
  }

  const int threads_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_cv_, done_cv_;
  std::atomic<uint32_t> generation_{0};  // the current job, for waking workers
  std::vector<Share> shares_;
  std::atomic<int> finished_shares_{0};
  // Read by claims without the job's synchronization (a worker late for one job may read the
  // next's), so atomic; any slice size claims correctly.
  std::atomic<int64_t> slice_{1};
  std::atomic<bool> stopping_{false};
  Job job_;
  std::mutex error_mutex_;
  std::exception_ptr error_;
};

// A positive count from environment variable `name`, else `fallback`.
int count_from_environment(const char* name, int fallback) {
  const char* env = std::getenv(name);
  int n = env ? std::atoi(env) : 0;
  return n >= 1 ? n : fallback;
}

int default_num_threads() {
  unsigned hw = std::thread::hardware_concurrency();
  return count_from_environment("TESSEL_NUM_THREADS", hw == 0 ? 1 : static_cast<int>(hw));
}

// The process-wide pool. Deliberately never destroyed: kernels may run during static
// destruction, and idle workers blocked at exit are harmless.
struct PoolState {
  std::mutex mutex;                  // held while a job runs on the pool and while it is replaced
  std::unique_ptr<ThreadPool> pool;  // created on first use, at the configured size
  std::atomic<int> threads{0};       // configured size; 0 until first asked
  std::atomic<int> slices{count_from_environment("TESSEL_SLICES_PER_THREAD", kDefaultSlicesPerThread)};
  bool locked_for_fork = false;
};

PoolState& state() {
  static PoolState* s = new PoolState;
  return *s;
}

int configured_threads() {
  int n = state().threads.load();
  if (n == 0) {
    int expected = 0;
    state().threads.compare_exchange_strong(expected, default_num_threads());
    n = state().threads.load();
  }
  return n;
}

// A forked child (the tuner measures kernels in one) has none of the parent's worker threads:
// it drops the parent's pool, unused, and builds its own on first use. The pool mutex is held
// across fork so the child never inherits it locked by a thread that does not exist there.
void prepare_fork() {
  if (in_parallel_region) return;
  state().mutex.lock();
  state().locked_for_fork = true;
}
void parent_after_fork() {
  if (!std::exchange(state().locked_for_fork, false)) return;
  state().mutex.unlock();
}
void child_after_fork() {
  (void)state().pool.release();
  parent_after_fork();
}
const bool fork_handlers_installed = [] {
  pthread_atfork(prepare_fork, parent_after_fork, child_after_fork);
  return true;
}();

}  // namespace

void parallel_for(int64_t n, ParallelTask task, void* data) {
  struct PerIndex {
    ParallelTask task;
    void* data;
  } per_index{task, data};
  auto each_index = [](int64_t begin, int64_t end, void* d) {
    auto* p = static_cast<PerIndex*>(d);
    for (int64_t i = begin; i < end; ++i) p->task(i, p->data);
  };
  parallel_for_range(n, each_index, &per_index);
}

void parallel_for_range(int64_t n, ParallelRangeTask task, void* data) {
  if (n <= 0) return;
  // A share's range is packed in 32 bits per end; a loop of 2^32 iterations or more runs serially.
  if (in_parallel_region || n == 1 || n > int64_t(UINT32_MAX) || configured_threads() == 1) return task(0, n, data);
  std::unique_lock<std::mutex> lock(state().mutex, std::try_to_lock);
  if (!lock.owns_lock()) return task(0, n, data);  // another thread's job has the pool
  std::unique_ptr<ThreadPool>& pool = state().pool;
  if (!pool || pool->threads() != configured_threads()) {
    pool.reset();
    pool = std::make_unique<ThreadPool>(configured_threads());
  }
  struct RegionGuard {
    RegionGuard() { in_parallel_region = true; }
    ~RegionGuard() { in_parallel_region = false; }
  } guard;
  pool->run(n, task, data, state().slices.load());
}

void set_num_threads(int n) {
  if (n < 1) user_error("set_num_threads: thread count must be >= 1, got ", n);
  if (in_parallel_region) user_error("set_num_threads: cannot change the thread count from inside a parallel task");
  std::lock_guard<std::mutex> lock(state().mutex);
  state().threads = n;
  if (state().pool && state().pool->threads() != n) state().pool.reset();
}

int num_threads() { return configured_threads(); }

void set_slices_per_thread(int n) {
  if (n < 1) user_error("set_slices_per_thread: slices per thread must be >= 1, got ", n);
  state().slices = n;
}

int slices_per_thread() { return state().slices.load(); }

}  // namespace tessel

extern "C" void tessel_parallel_for(int64_t n, tessel::ParallelRangeTask task, void* data) {
  tessel::parallel_for_range(n, task, data);
}
