// A candidate: one point of a schedule space, as the value strategies pass around, the tuner
// measures, records store and replay looks up. It is plain data; what it means (which schedule it
// builds) is its space's business (search/spaces/search_space.h).
//
// Two kinds of point exist:
//   an index      the mixed-radix number of a knob space's configuration (config_space.h): finite,
//                 numbered spaces such as the AutoTVM templates;
//   decisions     a list of integers, one per decision taken in order, for spaces whose points are
//                 built step by step (sketches, polyhedral schedules) and are not numbered.
// Its JSON form is what records store: a number for an index, {"decisions": [...]} for a list.
//
//   Candidate c = Candidate::from_index(42);
//   c.to_json().dump() == "42";   Candidate::from_json(c.to_json()) == c
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace tessel::search {

class Candidate {
 public:
  Candidate() : value_(uint64_t{0}) {}  // index 0
  static Candidate from_index(uint64_t index) { return Candidate(index); }
  static Candidate from_decisions(std::vector<int64_t> decisions) { return Candidate(std::move(decisions)); }

  bool is_index() const { return std::holds_alternative<uint64_t>(value_); }
  uint64_t index() const;                       // InternalError unless is_index()
  const std::vector<int64_t>& decisions() const;  // InternalError if is_index()

  // A JSON number for an index, {"decisions": [...]} for a list.
  nlohmann::json to_json() const;
  // The inverse; throws UserError saying what a candidate must look like.
  static Candidate from_json(const nlohmann::json& json);
  // "#42" or "[3,0,1]", for messages and labels.
  std::string str() const;

  bool operator==(const Candidate& other) const { return value_ == other.value_; }
  bool operator!=(const Candidate& other) const { return !(*this == other); }
  // Indices before decision lists; then by value. A total order, so rankings break ties the same way.
  bool operator<(const Candidate& other) const { return value_ < other.value_; }
  size_t hash() const;

 private:
  explicit Candidate(uint64_t index) : value_(index) {}
  explicit Candidate(std::vector<int64_t> decisions) : value_(std::move(decisions)) {}
  std::variant<uint64_t, std::vector<int64_t>> value_;
};

struct CandidateHash {
  size_t operator()(const Candidate& c) const { return c.hash(); }
};

}  // namespace tessel::search
