// Knob construction and lookup (search/spaces/knob.h).
#include "search/spaces/knob.h"

#include <algorithm>

#include "support/error.h"

namespace tessel::search {

namespace {

// Appends to `out` every factorization of `extent` into `parts` factors; `inner` holds the factors
// chosen so far, innermost first, and the first (outermost) factor takes what is left.
void factorize(int64_t extent, int parts, int64_t max_inner, std::vector<int64_t>& inner,
               std::vector<nlohmann::json>& out) {
  if (parts == 1) {
    std::vector<int64_t> factors{extent};
    factors.insert(factors.end(), inner.rbegin(), inner.rend());
    out.emplace_back(factors);
    return;
  }
  for (int64_t f = 1; f <= extent; ++f) {
    if (extent % f != 0 || (max_inner > 0 && f > max_inner)) continue;
    inner.push_back(f);
    factorize(extent / f, parts - 1, max_inner, inner, out);
    inner.pop_back();
  }
}

}  // namespace

const char* knob_kind_name(KnobKind kind) {
  switch (kind) {
    case KnobKind::Split: return "split";
    case KnobKind::Reorder: return "reorder";
    case KnobKind::Annotate: return "annotate";
    case KnobKind::Categorical: return "categorical";
  }
  return "?";
}

size_t Knob::index_of(const nlohmann::json& value) const {
  auto it = std::find(choices.begin(), choices.end(), value);
  if (it != choices.end()) return static_cast<size_t>(it - choices.begin());
  for (const auto& [alias, position] : aliases)
    if (alias == value) return position;
  user_error("knob '", name, "' has no choice ", value.dump(), "; it has ", choices.size(), " choices, e.g. ",
             choices.front().dump());
}

Knob fold_equivalent_choices(Knob knob, const std::function<bool(const nlohmann::json&, const nlohmann::json&)>& same) {
  std::vector<nlohmann::json> kept;
  std::vector<size_t> kept_as;  // each old choice's position among the kept ones
  std::vector<std::pair<nlohmann::json, size_t>> aliases;
  for (nlohmann::json& choice : knob.choices) {
    auto twin = std::find_if(kept.begin(), kept.end(), [&](const nlohmann::json& k) { return same(k, choice); });
    kept_as.push_back(static_cast<size_t>(twin - kept.begin()));
    if (twin == kept.end())
      kept.push_back(std::move(choice));
    else
      aliases.emplace_back(std::move(choice), kept_as.back());
  }
  for (auto& [alias, position] : knob.aliases) aliases.emplace_back(std::move(alias), kept_as[position]);
  knob.choices = std::move(kept);
  knob.aliases = std::move(aliases);
  return knob;
}

Knob split_knob(std::string name, int64_t extent, int parts, int64_t max_inner) {
  TESSEL_CHECK(extent >= 1 && parts >= 1, "split knob '", name, "' of extent ", extent, " into ", parts);
  Knob knob{std::move(name), KnobKind::Split, {}};
  std::vector<int64_t> inner;
  factorize(extent, parts, max_inner, inner, knob.choices);
  return knob;
}

Knob reorder_knob(std::string name, std::vector<std::vector<int>> orders) {
  TESSEL_CHECK(!orders.empty(), "reorder knob '", name, "' without orders");
  Knob knob{std::move(name), KnobKind::Reorder, {}};
  for (auto& order : orders) {
    std::vector<int> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i)
      TESSEL_CHECK(sorted[i] == static_cast<int>(i), "reorder knob '", knob.name, "': not a permutation");
    knob.choices.emplace_back(order);
  }
  return knob;
}

Knob annotate_knob(std::string name, std::vector<ForKind> choices) {
  TESSEL_CHECK(!choices.empty(), "annotate knob '", name, "' without choices");
  Knob knob{std::move(name), KnobKind::Annotate, {}};
  for (ForKind kind : choices) {
    TESSEL_CHECK(kind != ForKind::ThreadBinding, "annotate knob '", knob.name, "' offering bind");
    knob.choices.emplace_back(annotation_name(kind));
  }
  return knob;
}

Knob categorical_knob(std::string name, std::vector<nlohmann::json> values) {
  TESSEL_CHECK(!values.empty(), "categorical knob '", name, "' without values");
  return Knob{std::move(name), KnobKind::Categorical, std::move(values)};
}

}  // namespace tessel::search
