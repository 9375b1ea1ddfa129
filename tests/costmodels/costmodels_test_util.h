// Helpers of the cost-model tests: GEMM schedules (fixed and random) lowered to programs, an
// analytic throughput proxy for them, and rank correlation.
#pragma once
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "costmodels/features.h"
#include "ir/schedule.h"
#include "passes/lower/lower.h"

namespace tessel::test {

// The knobs of a GEMM schedule: tile factors of i, j, k, and the annotations of the innermost loops.
struct GemmKnobs {
  int64_t ti = 1, tj = 1, tk = 1;
  bool vectorize = false, unroll_k = false, parallel = false, k_innermost = false;
};

inline LoweredFunc lower_gemm(int64_t n, const GemmKnobs& knobs) {
  Tensor a = placeholder({n, n}, DataType::float32(), "A");
  Tensor b = placeholder({n, n}, DataType::float32(), "B");
  IterVar k = reduce_axis(n, "k");
  Tensor c = compute({n, n}, [&](Var i, Var j) { return sum(a(i, k) * b(k, j), {k}); }, "C");
  Schedule s = create_schedule({c});
  Stage st = s[c];
  auto [io, ii] = st.split(st.axis(0), knobs.ti);
  auto [jo, ji] = st.split(st.axis(1), knobs.tj);
  auto [ko, ki] = st.split(k, knobs.tk);
  if (knobs.k_innermost) st.reorder({io, jo, ko, ii, ji, ki});
  else st.reorder({io, jo, ko, ii, ki, ji});
  if (knobs.vectorize && !knobs.k_innermost) st.vectorize(ji);
  if (knobs.unroll_k) st.unroll(ki);
  if (knobs.parallel) st.parallel(io);
  return lower(s, {a, b, c}, "gemm");
}

inline GemmKnobs random_knobs(std::mt19937& rng) {
  const int64_t factors[] = {1, 2, 4, 8, 16, 32};
  auto pick = [&](int count) { return factors[std::uniform_int_distribution<int>(0, count - 1)(rng)]; };
  std::bernoulli_distribution coin(0.5);
  GemmKnobs k;
  k.ti = pick(6);
  k.tj = pick(6);
  k.tk = pick(4);
  k.vectorize = coin(rng);
  k.unroll_k = coin(rng) && k.tk <= 8;
  k.parallel = coin(rng);
  k.k_innermost = coin(rng);
  return k;
}

// A made-up throughput for a GEMM schedule (not hardware data): rewards vector lanes along j,
// unit-stride innermost access, register-sized tiles and parallelism, the way a CPU would.
inline double gemm_proxy_throughput(const GemmKnobs& k) {
  double lanes = k.vectorize && !k.k_innermost ? std::min<double>(static_cast<double>(k.tj), 16) : 1;
  double tile = std::log2(static_cast<double>(k.ti * k.tj));
  double locality = k.k_innermost ? 0.5 : 1.0;
  double blocking = 1.0 / (1.0 + std::abs(tile - 6) / 3);
  return (1 + lanes) * locality * blocking * (k.parallel ? 1.8 : 1.0) * (k.unroll_k ? 1.2 : 1.0);
}

// Spearman's rank correlation (ties get their mean rank).
inline double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  auto ranks = [](const std::vector<double>& v) {
    std::vector<size_t> order(v.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return v[x] < v[y]; });
    std::vector<double> r(v.size());
    for (size_t i = 0; i < order.size();) {
      size_t j = i;
      while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
      for (size_t t = i; t <= j; ++t) r[order[t]] = (static_cast<double>(i) + static_cast<double>(j)) / 2;
      i = j + 1;
    }
    return r;
  };
  std::vector<double> ra = ranks(a), rb = ranks(b);
  double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / ra.size(), mb = std::accumulate(rb.begin(), rb.end(), 0.0) / rb.size();
  double cov = 0, va = 0, vb = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    cov += (ra[i] - ma) * (rb[i] - mb);
    va += (ra[i] - ma) * (ra[i] - ma);
    vb += (rb[i] - mb) * (rb[i] - mb);
  }
  return va > 0 && vb > 0 ? cov / std::sqrt(va * vb) : 0.0;
}

}  // namespace tessel::test
