// Lowering of GEMM under split/tile/reorder/vectorize/unroll/parallel/fuse schedules, with dividing
// and non-dividing factors, checked by executing the lowered IR against naive C++ loops; plus the
// shape of the code the back ends get (vector stores, no division in the index arithmetic).
#include <catch2/catch.hpp>

#include "lower_test_util.h"

using namespace tessel;
using namespace tessel::test;

namespace {

struct Gemm {
  int64_t m, n, k;
  Tensor a, b, c;
  IterVar r;
  Gemm(int64_t m_, int64_t n_, int64_t k_) : m(m_), n(n_), k(k_) {
    a = placeholder({m, k}, DataType::float32(), "A");
    b = placeholder({k, n}, DataType::float32(), "B");
    r = reduce_axis(k, "k");
    c = compute(
        {m, n}, [&](Var i, Var j) { return sum(a(i, r) * b(r, j), {r}); }, "C");
  }

  // Runs f and compares C with a naive triple loop.
  void check(const LoweredFunc& f) const {
    INFO("lowered:\n" << f);
    NDArray av = NDArray::random_uniform({m, k}, DataType::float32(), 1);
    NDArray bv = NDArray::random_uniform({k, n}, DataType::float32(), 2);
    NDArray cv = NDArray::zeros({m, n}, DataType::float32());
    run_lowered(f, {&av, &bv, &cv});
    const float *pa = av.data_as<float>(), *pb = bv.data_as<float>(), *pc = cv.data_as<float>();
    double worst = 0;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        float acc = 0;
        for (int64_t q = 0; q < k; ++q) acc += pa[i * k + q] * pb[q * n + j];
        worst = std::max(worst, static_cast<double>(std::abs(acc - pc[i * n + j])));
      }
    CHECK(worst < 1e-4);
  }
};

}  // namespace

TEST_CASE("lower: GEMM with the default schedule", "[lower]") {
  Gemm g(7, 5, 3);
  Schedule s = create_schedule({g.c});
  LoweredFunc f = lower(s, {g.a, g.b, g.c}, "gemm");
  g.check(f);
  ContractChecker c = check_contract(f);
  CHECK(c.loops == 3);  // the init sits inside the j loop, before the k loop
}

TEST_CASE("lower: tiled, reordered, vectorized and unrolled GEMM", "[lower]") {
  for (bool dividing : {true, false}) {
    Gemm g = dividing ? Gemm(32, 48, 32) : Gemm(37, 35, 27);
    Schedule s = create_schedule({g.c});
    Stage st = s[g.c];
    auto [io, jo, ii, ji] = st.tile(st.axis(0), st.axis(1), 8, 16);
    auto [ko, ki] = st.split(g.r, 4);
    st.reorder({io, jo, ko, ii, ki, ji});
    st.vectorize(ji);
    st.unroll(ki);
    st.parallel(io);
    LoweredFunc f = lower(s, {g.a, g.b, g.c}, "gemm");
    g.check(f);
    ContractChecker contract = check_contract(f);
    CHECK(contract.vector_stores > 0);  // loop partitioning keeps the tiles of a ragged edge vectorizable
    CHECK(contract.divisions == 0);
  }
}

TEST_CASE("lower: reduction loop outside data-parallel loops puts the init before it", "[lower]") {
  Gemm g(12, 10, 9);
  Schedule s = create_schedule({g.c});
  Stage st = s[g.c];
  auto [ko, ki] = st.split(g.r, 4);
  auto [jo, ji] = st.split(st.axis(1), 4);
  st.reorder({st.axis(0), ko, jo, ki, ji});
  st.vectorize(ji);
  g.check(lower(s, {g.a, g.b, g.c}, "gemm"));
}

TEST_CASE("lower: fused and re-split axes", "[lower]") {
  Gemm g(9, 14, 5);
  Schedule s = create_schedule({g.c});
  Stage st = s[g.c];
  IterVar fused = st.fuse(st.axis(0), st.axis(1));
  auto [outer, inner] = st.split(fused, 8);
  st.parallel(outer);
  st.vectorize(inner);
  g.check(lower(s, {g.a, g.b, g.c}, "gemm"));
}

TEST_CASE("lower: split by nparts and unroll beyond the limit stay correct", "[lower]") {
  Gemm g(10, 70, 3);
  Schedule s = create_schedule({g.c});
  Stage st = s[g.c];
  auto [io, ii] = st.split_nparts(st.axis(0), 3);
  st.unroll(ii);
  st.unroll(st.axis(1));  // 70 iterations: above the unroll limit, stays a loop
  LoweredFunc f = lower(s, {g.a, g.b, g.c}, "gemm");
  g.check(f);
  CHECK(check_contract(f).loops >= 3);
}
