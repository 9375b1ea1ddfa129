// Candidates: kinds, JSON form and hashing (search/spaces/candidate.h).
#include "search/spaces/candidate.h"

#include <functional>

#include "support/error.h"

namespace tessel::search {

namespace {
constexpr const char* kForm = "a candidate is a configuration index (a number >= 0) or {\"decisions\": [integers]}";
}

uint64_t Candidate::index() const {
  TESSEL_CHECK(is_index(), "candidate ", str(), " is a decision list, not an index");
  return std::get<uint64_t>(value_);
}

const std::vector<int64_t>& Candidate::decisions() const {
  TESSEL_CHECK(!is_index(), "candidate ", str(), " is an index, not a decision list");
  return std::get<std::vector<int64_t>>(value_);
}

nlohmann::json Candidate::to_json() const {
  if (is_index()) return index();
  return {{"decisions", decisions()}};
}

Candidate Candidate::from_json(const nlohmann::json& json) {
  if (json.is_number_unsigned() || (json.is_number_integer() && json.get<int64_t>() >= 0))
    return from_index(json.get<uint64_t>());
  if (json.is_object() && json.size() == 1 && json.contains("decisions") && json.at("decisions").is_array()) {
    std::vector<int64_t> decisions;
    for (const nlohmann::json& d : json.at("decisions")) {
      if (!d.is_number_integer()) user_error("bad candidate ", json.dump(), ": ", kForm);
      decisions.push_back(d.get<int64_t>());
    }
    return from_decisions(std::move(decisions));
  }
  user_error("bad candidate ", json.dump(), ": ", kForm);
}

std::string Candidate::str() const {
  if (is_index()) return "#" + std::to_string(index());
  return nlohmann::json(decisions()).dump();
}

size_t Candidate::hash() const {
  if (is_index()) return std::hash<uint64_t>()(index());
  size_t h = 0x9e3779b97f4a7c15ULL;
  for (int64_t d : decisions()) h = (h ^ std::hash<int64_t>()(d)) * 0x100000001b3ULL;
  return h;
}

}  // namespace tessel::search
