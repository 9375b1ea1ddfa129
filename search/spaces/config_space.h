// A configuration space: the knobs of one template, and the numbering of their combinations.
//
// A configuration is one choice per knob. Its index is the mixed-radix number whose digits are the
// choice positions, the first knob the least significant digit:
//   index = c0 + size0 * (c1 + size1 * (c2 + ...))
// so every index in [0, size()) names exactly one configuration. As a SearchSpace
// (search_space.h) its candidates are these indices, its decisions the knob choices, and its
// moves act on one knob at a time. The JSON form names each knob's value, so a record stays
// readable and is checked against the space it is loaded into.
//
// Growing a space: a knob added to a template later goes last, its first choice being what the
// schedule did before the knob existed. A record written before then names the same schedule with
// that knob at its first choice, and even keeps its index (the new knob is the most significant
// digit, and 0): candidate_from_record reads it so, and records tuned before keep applying.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "search/spaces/knob.h"
#include "search/spaces/search_space.h"

namespace tessel::search {

class ConfigSpace;

// One configuration: its index and the decoded choice of every knob, with typed accessors.
class Config {
 public:
  Config(const ConfigSpace* space, uint64_t index, std::vector<size_t> choices);
  uint64_t index() const { return index_; }
  Candidate candidate() const { return Candidate::from_index(index_); }
  const std::vector<size_t>& choices() const { return choices_; }

  const nlohmann::json& value(const std::string& knob) const;
  std::vector<int64_t> split(const std::string& knob) const;
  std::vector<int> order(const std::string& knob) const;
  ForKind annotation(const std::string& knob) const;
  int64_t get_int(const std::string& knob) const;
  std::string get_string(const std::string& knob) const;

  // {"index": i, "knobs": {"tile_m": [..], ...}}, knobs in declaration order.
  nlohmann::ordered_json to_json() const;
  // "tile_m=[4,16] order=[1,0] ..." for logs and the tune report.
  std::string describe() const;

 private:
  const ConfigSpace* space_;
  uint64_t index_;
  std::vector<size_t> choices_;
};

class ConfigSpace : public SearchSpace {
 public:
  void add(Knob knob);  // throws InternalError on a repeated name or a space past 2^62 points
  const std::vector<Knob>& knobs() const { return knobs_; }
  const Knob& knob(const std::string& name) const;  // throws UserError listing the knobs
  size_t knob_position(const std::string& name) const;
  uint64_t size() const override { return size_; }

  Config get(uint64_t index) const;  // throws UserError if index >= size()
  // The configuration of a candidate; throws UserError unless it is an index of this space.
  Config get(const Candidate& candidate) const;
  uint64_t encode(const std::vector<size_t>& choices) const;
  std::vector<size_t> decode(uint64_t index) const;

  // The configuration with the given knob values (an object knob name -> value; every knob must
  // be given). Accepts both the object itself and to_json()'s {"index", "knobs"} form; an index
  // that disagrees with the knob values is an error.
  Config from_json(const nlohmann::json& json) const;

  // SearchSpace, on knob choices. mutate() moves one knob (of more than one choice) by a random
  // nonzero shift; neighbours() moves one knob by up to `radius` positions either way.
  bool contains(const Candidate& c) const override;
  Candidate random(Rng& rng) const override;
  Candidate mutate(const Candidate& c, Rng& rng) const override;
  Candidate crossover(const Candidate& a, const Candidate& b, Rng& rng) const override;
  Candidate perturb(const Candidate& c, double probability, Rng& rng) const override;
  std::vector<Candidate> neighbours(const Candidate& c, size_t radius) const override;
  std::vector<int64_t> decisions(const Candidate& c) const override;
  nlohmann::json to_json(const Candidate& c) const override;  // knob name -> value
  Candidate candidate_from_json(const nlohmann::json& json) const override { return from_json(json).candidate(); }
  // As candidate_from_json; a form naming a prefix of the knobs gets the rest at their first choice.
  Candidate candidate_from_record(const nlohmann::json& json) const override;
  std::string describe(const Candidate& c) const override { return get(c).describe(); }

 private:
  std::vector<size_t> choices_of(const Candidate& c) const;
  std::vector<Knob> knobs_;
  uint64_t size_ = 1;
};

}  // namespace tessel::search
