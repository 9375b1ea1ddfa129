// Program features: fixed length, finite, deterministic, named; their values on GEMM schedules
// where the right answer is known (strides, reductions, lanes); sensitivity to the schedule
// changes that matter; and the loop tree's shape.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "costmodels_test_util.h"

using namespace tessel;
using namespace tessel::test;

namespace {

std::map<std::string, float> named(const ProgramFeatures& f) {
  std::map<std::string, float> out;
  for (size_t i = 0; i < f.flat.size(); ++i) out[flat_feature_names()[i]] = f.flat[i];
  return out;
}

double lg(double x) { return std::log2(1 + x); }

}  // namespace

TEST_CASE("features: fixed length, finite, deterministic and named", "[features]") {
  REQUIRE(flat_feature_names().size() == kFlatFeatureLength);
  std::set<std::string> unique(flat_feature_names().begin(), flat_feature_names().end());
  CHECK(unique.size() == flat_feature_names().size());
  std::mt19937 rng(3);
  for (int trial = 0; trial < 20; ++trial) {
    GemmKnobs knobs = random_knobs(rng);
    ProgramFeatures a = extract_features(lower_gemm(48, knobs)), b = extract_features(lower_gemm(48, knobs));
    REQUIRE(a.flat.size() == kFlatFeatureLength);
    CHECK(a.flat == b.flat);
    for (float v : a.flat) CHECK(std::isfinite(v));
    REQUIRE(a.tree.nodes.size() == b.tree.nodes.size());
    for (size_t i = 0; i < a.tree.nodes.size(); ++i) {
      CHECK(a.tree.nodes[i].features == b.tree.nodes[i].features);
      CHECK(a.tree.nodes[i].features.size() == kTreeNodeFeatures);
      for (int child : a.tree.nodes[i].children) CHECK(child > static_cast<int>(i));
    }
  }
}

TEST_CASE("features: strides, reduction and trip counts of a plain GEMM", "[features]") {
  auto f = named(extract_features(lower_gemm(64, GemmKnobs{})));  // loops i, j, k (factor-1 splits vanish)
  // The dominant body is C += A[i, k] * B[k, j]: level 1 is k, level 2 is j, level 3 is i.
  CHECK(f["level1.extent"] == Approx(lg(64)));
  CHECK(f["level1.reduction"] == 1);
  CHECK(f["level2.reduction"] == 0);
  CHECK(f["buffer0.stored"] == 1);  // C comes first: it is stored
  CHECK(f["level1.slot0.stride"] == 0);  // C does not move with k
  // A and B are accessed equally often; by name, A is slot 1: stride 1 along k, B's stride is n.
  CHECK(f["level1.slot1.stride"] == Approx(lg(1)));
  CHECK(f["level1.slot2.stride"] == Approx(lg(64)));
  CHECK(f["level3.slot1.stride"] == Approx(lg(64)));  // A along i
  CHECK(f["body.trips"] == Approx(lg(64.0 * 64 * 64)));
  CHECK(f["body.float_fma"] == Approx(lg(1)));
  CHECK(f["float_ops"] == Approx(lg(2.0 * 64 * 64 * 64)).epsilon(0.01));
  CHECK(f["level0.extent"] == Approx(lg(1)));  // scalar code: one lane
  // B's whole footprint along i (the outermost level): the full matrix.
  CHECK(f["level3.slot2.touched_bytes"] == Approx(lg(64.0 * 64 * 4)));
}

TEST_CASE("features: vectorization, tiling and loop order change the vector", "[features]") {
  GemmKnobs base;
  base.ti = 8;
  base.tj = 16;
  base.tk = 4;
  GemmKnobs vectorized = base;
  vectorized.vectorize = true;
  GemmKnobs retiled = base;
  retiled.tj = 8;
  GemmKnobs reordered = base;
  reordered.k_innermost = true;
  ProgramFeatures f0 = extract_features(lower_gemm(64, base));
  ProgramFeatures fv = extract_features(lower_gemm(64, vectorized));
  CHECK(f0.flat != fv.flat);
  CHECK(f0.flat != extract_features(lower_gemm(64, retiled)).flat);
  CHECK(f0.flat != extract_features(lower_gemm(64, reordered)).flat);
  auto v = named(fv);
  CHECK(v["level0.extent"] == Approx(lg(16)));  // the lanes
  CHECK(v["vector_fraction"] == 1);
  CHECK(named(f0)["vector_fraction"] == 0);
  GemmKnobs parallel = base;
  parallel.parallel = true;
  auto p = named(extract_features(lower_gemm(64, parallel)));
  CHECK(p["parallel_fraction"] == 1);
  CHECK(p["parallel_extent"] == Approx(lg(8)));
}

TEST_CASE("features: unrolling shows as repeated stores in the body", "[features]") {
  GemmKnobs rolled;
  rolled.tk = 4;
  GemmKnobs unrolled = rolled;
  unrolled.unroll_k = true;
  auto r = named(extract_features(lower_gemm(32, rolled)));
  auto u = named(extract_features(lower_gemm(32, unrolled)));
  CHECK(u["body.stores"] > r["body.stores"]);
  CHECK(u["float_ops"] == Approx(r["float_ops"]));  // the same work, differently arranged
}

TEST_CASE("features: the loop tree mirrors the loop nest", "[features]") {
  LoopTree tree = extract_features(lower_gemm(16, GemmKnobs{})).tree;
  // Root, then i > j > {init body, k > update body}.
  REQUIRE(tree.nodes.size() == 6);
  const auto& root = tree.nodes[0];
  CHECK(root.features[0] == 1);
  REQUIRE(root.children.size() == 1);
  int leaves = 0, loops = 0;
  for (const LoopTreeNode& n : tree.nodes) {
    leaves += n.features[2] == 1;
    loops += n.features[1] == 1;
    CHECK((n.features[2] == 1) == n.children.empty());
  }
  CHECK(leaves == 2);
  CHECK(loops == 3);
}

TEST_CASE("features: ablation specs select groups by name prefix or field", "[features]") {
  const std::vector<std::string>& names = flat_feature_names();
  CHECK(select_flat_features("").empty());
  std::vector<int> levels = select_flat_features("level");
  CHECK(levels.size() == static_cast<size_t>(kLoopLevels * kLevelFeatures));
  for (int i : levels) CHECK(names[i].rfind("level", 0) == 0);
  std::vector<int> access = select_flat_features("stride,touched_bytes,reuse");
  CHECK(access.size() == static_cast<size_t>(kLoopLevels * kBufferSlots * kLevelSlotFeatures));
  CHECK(select_flat_features("level0.,level0.").size() == static_cast<size_t>(kLevelFeatures));
  CHECK_THROWS_WITH(select_flat_features("level,strides"), Catch::Contains("\"strides\" names no program feature"));
}
