// Knobs and configuration spaces: factorization enumeration, the mixed-radix index ↔ knob values
// mapping and the JSON form of configurations, including the errors on bad JSON.
#include <catch2/catch.hpp>

#include <set>

#include "search/spaces/config_space.h"
#include "support/error.h"

using namespace tessel;
using namespace tessel::search;

namespace {

int64_t product(const nlohmann::json& factors) {
  int64_t p = 1;
  for (const auto& f : factors) p *= f.get<int64_t>();
  return p;
}

ConfigSpace sample_space() {
  ConfigSpace space;
  space.add(split_knob("tile_x", 12, 3));
  space.add(reorder_knob("order", {{0, 1, 2}, {2, 0, 1}}));
  space.add(annotate_knob("inner", {ForKind::Unrolled, ForKind::Vectorized, ForKind::Serial}));
  space.add(categorical_knob("width", {16, 32}));
  return space;
}

}  // namespace

TEST_CASE("split knobs enumerate every ordered factorization exactly once", "[search][spaces]") {
  Knob two = split_knob("s", 12, 2);
  CHECK(two.size() == 6);  // one per divisor of 12
  Knob three = split_knob("s", 12, 3);
  CHECK(three.size() == 18);  // sum over divisors d of 12 of the number of divisors of 12/d
  std::set<std::string> seen;
  for (const auto& choice : three.choices) {
    CHECK(choice.size() == 3);
    CHECK(product(choice) == 12);
    CHECK(seen.insert(choice.dump()).second);
  }
  Knob limited = split_knob("s", 64, 3, 4);
  for (const auto& choice : limited.choices) {
    CHECK(choice[1].get<int64_t>() <= 4);
    CHECK(choice[2].get<int64_t>() <= 4);
    CHECK(product(choice) == 64);
  }
  CHECK(limited.size() == 9);  // inner factors 1, 2, 4 each
  CHECK(split_knob("prime", 7, 2).size() == 2);
}

TEST_CASE("every index maps to distinct knob values and back", "[search][spaces]") {
  ConfigSpace space = sample_space();
  REQUIRE(space.size() == 18 * 2 * 3 * 2);
  std::set<std::string> seen;
  for (uint64_t i = 0; i < space.size(); ++i) {
    Config c = space.get(i);
    CHECK(space.encode(c.choices()) == i);
    auto json = c.to_json();
    CHECK(seen.insert(json["knobs"].dump()).second);
    Config back = space.from_json(nlohmann::json::parse(json.dump()));
    CHECK(back.index() == i);
    CHECK(space.from_json(json["knobs"]).index() == i);  // the bare knob object works too
  }
}

TEST_CASE("the first knob is the least significant digit of the index", "[search][spaces]") {
  ConfigSpace space = sample_space();
  CHECK(space.decode(1) == std::vector<size_t>{1, 0, 0, 0});
  CHECK(space.decode(18) == std::vector<size_t>{0, 1, 0, 0});
  CHECK(space.decode(space.size() - 1) == std::vector<size_t>{17, 1, 2, 1});
}

TEST_CASE("typed accessors read the chosen values", "[search][spaces]") {
  ConfigSpace space = sample_space();
  Config c = space.from_json({{"tile_x", {3, 2, 2}}, {"order", {2, 0, 1}}, {"inner", "vectorize"}, {"width", 32}});
  CHECK(c.split("tile_x") == std::vector<int64_t>{3, 2, 2});
  CHECK(c.order("order") == std::vector<int>{2, 0, 1});
  CHECK(c.annotation("inner") == ForKind::Vectorized);
  CHECK(c.get_int("width") == 32);
  CHECK(c.describe() == "tile_x=[3,2,2] order=[2,0,1] inner=\"vectorize\" width=32");
}

TEST_CASE("bad configurations are user errors naming the problem", "[search][spaces]") {
  ConfigSpace space = sample_space();
  nlohmann::json good = {{"tile_x", {3, 2, 2}}, {"order", {2, 0, 1}}, {"inner", "none"}, {"width", 16}};
  auto with = [&](const char* key, nlohmann::json value) {
    nlohmann::json j = good;
    j[key] = std::move(value);
    return j;
  };
  CHECK_THROWS_WITH(space.from_json(with("tile_x", {5, 2, 2})), Catch::Contains("knob 'tile_x' has no choice [5,2,2]"));
  CHECK_THROWS_WITH(space.from_json(with("depth", 3)), Catch::Contains("unknown knob 'depth'"));
  nlohmann::json missing = good;
  missing.erase("width");
  CHECK_THROWS_WITH(space.from_json(missing), Catch::Contains("lacks knob 'width'"));
  nlohmann::json wrong_index = {{"index", 0}, {"knobs", good}};
  CHECK_THROWS_AS(space.from_json(wrong_index), UserError);
  CHECK_THROWS_WITH(space.get(space.size()), Catch::Contains("outside the space"));
}

TEST_CASE("records written before a knob was appended name the point with it at its first choice",
          "[search][spaces]") {
  ConfigSpace grown = sample_space();
  grown.add(categorical_knob("parallel", {"channels", "rows"}));
  ConfigSpace before = sample_space();
  for (uint64_t i : {uint64_t{0}, uint64_t{7}, before.size() - 1}) {
    nlohmann::json record = {{"index", i}, {"knobs", before.to_json(Candidate::from_index(i))}};
    Candidate read = grown.candidate_from_record(record);
    CHECK(read == Candidate::from_index(i));  // the same index: the new knob is the top digit, at 0
    CHECK(grown.to_json(read)["parallel"] == "channels");
    // Parsing a configuration stays strict: a missing knob is an error there.
    CHECK_THROWS_WITH(grown.candidate_from_json(record), Catch::Contains("lacks knob 'parallel'"));
  }
  // Only knobs at the end may be missing; a gap is not a grown space.
  nlohmann::json gap = before.to_json(Candidate::from_index(3));
  gap.erase("order");
  CHECK_THROWS_WITH(grown.candidate_from_record(gap), Catch::Contains("lacks knob 'order'"));
}

TEST_CASE("choices folded as twins leave the knob and still read as the choice they make", "[search][spaces]") {
  // Orders of three axes where axis 2 has one iteration: [0,1,2], [0,2,1] and [2,0,1] are one loop nest.
  Knob order = reorder_knob("order", {{0, 1, 2}, {1, 0, 2}, {0, 2, 1}, {2, 0, 1}, {2, 1, 0}});
  auto loops = [](const nlohmann::json& o) {
    std::vector<int> kept;
    for (int axis : o.get<std::vector<int>>())
      if (axis != 2) kept.push_back(axis);
    return kept;
  };
  Knob folded =
      fold_equivalent_choices(order, [&](const nlohmann::json& a, const nlohmann::json& b) { return loops(a) == loops(b); });
  REQUIRE(folded.choices == std::vector<nlohmann::json>{{0, 1, 2}, {1, 0, 2}});
  CHECK(folded.index_of(nlohmann::json{0, 2, 1}) == 0);
  CHECK(folded.index_of(nlohmann::json{2, 1, 0}) == 1);
  CHECK_THROWS_WITH(folded.index_of(nlohmann::json{1, 2, 3}), Catch::Contains("knob 'order' has no choice [1,2,3]"));
  // Folding again keeps the earlier aliases, pointing at where their choice went.
  Knob one = fold_equivalent_choices(folded, [](const nlohmann::json&, const nlohmann::json&) { return true; });
  CHECK(one.size() == 1);
  for (const nlohmann::json& o : order.choices) CHECK(one.index_of(o) == 0);
  ConfigSpace space;
  space.add(split_knob("tile", 4, 2));
  space.add(folded);
  CHECK(space.size() == 3 * 2);
  Config c = space.from_json({{"tile", {2, 2}}, {"order", {2, 1, 0}}});
  CHECK(c.order("order") == std::vector<int>{1, 0, 2});
}
