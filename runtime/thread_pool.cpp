// A static-partition thread pool whose idle workers spin briefly, then sleep on a condition
// variable. One job runs at a time: the caller publishes it by bumping a generation counter, runs
// chunks itself, and waits until every chunk is done.
#include "runtime/thread_pool.h"

#include <atomic>
#include <condition_variable>
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

// Spinning this many rounds (a few microseconds) catches back-to-back parallel loops without
// holding a shared core for long when the pool is idle.
constexpr int kSpinRounds = 2000;

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

// The chunks of a job are fixed (chunk c of T covers [n*c/T, n*(c+1)/T)), but which thread runs
// which is decided by claiming: the caller and the workers claim chunks until none are left. On
// a shared machine a worker may not get a core for milliseconds; the caller then runs that
// worker's chunk itself instead of waiting for it.
class ThreadPool {
 public:
  explicit ThreadPool(int threads) : threads_(threads) {
    for (int w = 1; w < threads; ++w) workers_.emplace_back([this] { worker_loop(); });
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

  void run(int64_t n, ParallelRangeTask task, void* data) {
    uint32_t generation;
    {
      // No chunk of an earlier job is claimed and unfinished here, so nobody reads job_.
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = Job{n, task, data};
      error_ = nullptr;
      done_chunks_.store(0, std::memory_order_relaxed);
      generation = generation_.load(std::memory_order_relaxed) + 1;
      claims_.store(uint64_t(generation) << 32, std::memory_order_release);
      generation_.store(generation, std::memory_order_release);
    }
    wake_cv_.notify_all();
    run_claimed_chunks(generation);
    wait_for_chunks();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void worker_loop() {
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
      run_claimed_chunks(seen);
    }
  }

  // Claims and runs chunks of job `generation` until none are left (or a newer job started,
  // which means this one has none left).
  void run_claimed_chunks(uint32_t generation) {
    for (;;) {
      uint64_t word = claims_.load(std::memory_order_acquire);
      do {
        if (uint32_t(word >> 32) != generation || uint32_t(word) >= uint32_t(threads_)) return;
      } while (!claims_.compare_exchange_weak(word, word + 1, std::memory_order_acq_rel));
      run_chunk(static_cast<int>(uint32_t(word)));
      if (done_chunks_.fetch_add(1, std::memory_order_acq_rel) + 1 == threads_) {
        std::lock_guard<std::mutex> lock(mutex_);  // pairs with the waiter's predicate check
        done_cv_.notify_one();
      }
    }
  }

  void run_chunk(int chunk) {
    int64_t begin = job_.n * chunk / threads_;
    int64_t end = job_.n * (chunk + 1) / threads_;
    if (begin == end) return;
    try {
      job_.task(begin, end, job_.data);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex_);
      if (!error_) error_ = std::current_exception();
    }
  }

  void wait_for_chunks() {
    auto all_done = [&] { return done_chunks_.load(std::memory_order_acquire) == threads_; };
    if (spin_until(all_done)) return;
    std::unique_lock<std::mutex> lock(mutex_);
    done_cv_.wait(lock, all_done);
  }

  const int threads_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_cv_, done_cv_;
  std::atomic<uint32_t> generation_{0};  // the current job, for waking workers
  std::atomic<uint64_t> claims_{0};      // current job's generation << 32 | next unclaimed chunk
  std::atomic<int> done_chunks_{0};
  std::atomic<bool> stopping_{false};
  Job job_;
  std::mutex error_mutex_;
  std::exception_ptr error_;
};

int default_num_threads() {
  if (const char* env = std::getenv("TESSEL_NUM_THREADS")) {
    int n = std::atoi(env);
    if (n >= 1) return n;
  }
  unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

// The process-wide pool. Deliberately never destroyed: kernels may run during static
// destruction, and idle workers blocked at exit are harmless.
struct PoolState {
  std::mutex mutex;                  // held while a job runs on the pool and while it is replaced
  std::unique_ptr<ThreadPool> pool;  // created on first use, at the configured size
  std::atomic<int> threads{0};       // configured size; 0 until first asked
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
  if (in_parallel_region || n == 1 || configured_threads() == 1) return task(0, n, data);
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
  pool->run(n, task, data);
}

void set_num_threads(int n) {
  if (n < 1) user_error("set_num_threads: thread count must be >= 1, got ", n);
  if (in_parallel_region) user_error("set_num_threads: cannot change the thread count from inside a parallel task");
  std::lock_guard<std::mutex> lock(state().mutex);
  state().threads = n;
  if (state().pool && state().pool->threads() != n) state().pool.reset();
}

int num_threads() { return configured_threads(); }

}  // namespace tessel

extern "C" void tessel_parallel_for(int64_t n, tessel::ParallelRangeTask task, void* data) {
  tessel::parallel_for_range(n, task, data);
}
