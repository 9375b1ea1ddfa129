// Measured read bandwidth from memory (benchmarks/memory_bandwidth.h).
#include "benchmarks/memory_bandwidth.h"

#include <immintrin.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <vector>

#include "runtime/thread_pool.h"
#include "support/error.h"

namespace tessel {

namespace {

constexpr int64_t kMinBufferBytes = int64_t(64) << 20;

// Sums of the 64-bit words [p, p + n), n a multiple of 32 (four vectors of the widest ISA), read
// with the ISA's vector loads: with 8-byte loads the load queue holds a quarter of the lines in
// flight, and one thread of the Zen 3 machine read 6.6 GB/s where 32-byte loads read 9.6.
__attribute__((target("avx512f"))) uint64_t avx512_sum(const uint64_t* p, int64_t n) {
  __m512i a = _mm512_setzero_si512(), b = a, c = a, d = a;  // four chains: no add waits on another
  for (int64_t i = 0; i < n; i += 32) {
    a = _mm512_add_epi64(a, _mm512_load_si512(p + i));
    b = _mm512_add_epi64(b, _mm512_load_si512(p + i + 8));
    c = _mm512_add_epi64(c, _mm512_load_si512(p + i + 16));
    d = _mm512_add_epi64(d, _mm512_load_si512(p + i + 24));
  }
  return _mm512_reduce_add_epi64(_mm512_add_epi64(_mm512_add_epi64(a, b), _mm512_add_epi64(c, d)));
}

__attribute__((target("avx2"))) uint64_t avx2_sum(const uint64_t* p, int64_t n) {
  __m256i a = _mm256_setzero_si256(), b = a, c = a, d = a;
  for (int64_t i = 0; i < n; i += 16) {
    a = _mm256_add_epi64(a, _mm256_load_si256(reinterpret_cast<const __m256i*>(p + i)));
    b = _mm256_add_epi64(b, _mm256_load_si256(reinterpret_cast<const __m256i*>(p + i + 4)));
    c = _mm256_add_epi64(c, _mm256_load_si256(reinterpret_cast<const __m256i*>(p + i + 8)));
    d = _mm256_add_epi64(d, _mm256_load_si256(reinterpret_cast<const __m256i*>(p + i + 12)));
  }
  alignas(32) uint64_t lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), _mm256_add_epi64(_mm256_add_epi64(a, b), _mm256_add_epi64(c, d)));
  return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}

uint64_t sse_sum(const uint64_t* p, int64_t n) {
  __m128i a = _mm_setzero_si128(), b = a, c = a, d = a;
  for (int64_t i = 0; i < n; i += 8) {
    a = _mm_add_epi64(a, _mm_load_si128(reinterpret_cast<const __m128i*>(p + i)));
    b = _mm_add_epi64(b, _mm_load_si128(reinterpret_cast<const __m128i*>(p + i + 2)));
    c = _mm_add_epi64(c, _mm_load_si128(reinterpret_cast<const __m128i*>(p + i + 4)));
    d = _mm_add_epi64(d, _mm_load_si128(reinterpret_cast<const __m128i*>(p + i + 6)));
  }
  alignas(16) uint64_t lanes[2];
  _mm_store_si128(reinterpret_cast<__m128i*>(lanes), _mm_add_epi64(_mm_add_epi64(a, b), _mm_add_epi64(c, d)));
  return lanes[0] + lanes[1];
}

using SumFn = uint64_t (*)(const uint64_t*, int64_t);

SumFn sum_for(CpuIsa isa) {
  if (isa == CpuIsa::AVX512) return avx512_sum;
  return isa == CpuIsa::AVX2 ? avx2_sum : sse_sum;
}

// Words per share: each thread's share a multiple of 32 words (256 bytes), aligned as the buffer.
constexpr int64_t kShareWords = 32;

// Word i of the buffer holds i, so the words sum to a known value: a read the compiler dropped,
// or a share a thread skipped, shows as a wrong sum.
struct StreamRun {
  StreamRun(const CpuDescription& cpu, int64_t bytes)
      : sum(sum_for(cpu.isa)), words(bytes / 8 / (kShareWords * cpu.threads) * kShareWords * cpu.threads),
        buffer(static_cast<uint64_t*>(std::aligned_alloc(64, words * 8))), sums(cpu.threads) {
    TESSEL_CHECK(buffer, "the memory bandwidth: no memory for a buffer of ", words * 8, " bytes");
    for (int64_t i = 0; i < words; ++i) buffer[i] = uint64_t(i);
    set_num_threads(cpu.threads);
  }
  ~StreamRun() { std::free(buffer); }
  StreamRun(const StreamRun&) = delete;  // timed through std::ref: the sums are checked here

  void operator()() {
    int64_t share = words / int64_t(sums.size());
    parallel_for(int64_t(sums.size()), [&](int64_t t) { sums[t] = sum(buffer + t * share, share); });
  }

  bool summed_right() const {
    uint64_t total = 0, n = uint64_t(words);
    for (uint64_t s : sums) total += s;
    return total == n * (n - 1) / 2;  // modulo 2^64 on both sides
  }

  SumFn sum;
  int64_t words;
  uint64_t* buffer;
  std::vector<uint64_t> sums;  // one per thread
};

}  // namespace

BandwidthResult measure_read_bandwidth(const Target& target, int repeats) {
  target.check_runs_here("the memory bandwidth");
  if (repeats < 1) user_error("the memory bandwidth: --repeats must be at least 1, got ", repeats);
  const CpuDescription& cpu = target.cpu();
  int64_t bytes = std::max(4 * cpu.l3_bytes, kMinBufferBytes);
  StreamRun run(cpu, bytes);
  BandwidthResult result;
  result.threads = cpu.threads;
  result.bytes = run.words * 8;
  result.time = measure(std::ref(run), 1, repeats);
  TESSEL_CHECK(run.summed_right(), "the memory bandwidth: the threads did not read what the buffer holds");
  return result;
}

}  // namespace tessel
