// What a search strategy may do with a schedule space without knowing what its points are: draw
// one, change one, recombine two, list the neighbours of one, check one, and read and write one.
// Each space says what these moves mean for its points (candidate.h); strategies work through
// them, so the same strategy searches a knob template (config_space.h, points are indices) and a
// space whose points are decision lists.
//
// Every move that is random takes the strategy's generator, so a strategy's choices stay a
// function of its seed.
//
//   const SearchSpace& space = task.space();
//   Candidate c = space.random(rng);
//   Candidate n = space.mutate(c, rng);          // one decision changed
//   nlohmann::json readable = space.to_json(n);  // e.g. knob name -> value
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "search/spaces/candidate.h"

namespace tessel::search {

using Rng = std::mt19937_64;

class SearchSpace {
 public:
  virtual ~SearchSpace() = default;

  // For a finite space numbered by index (every candidate an index below it): its number of
  // points. 0 for a space of decision lists, which is not numbered.
  virtual uint64_t size() const = 0;
  // Whether `c` is a point of this space (of the right kind, in range, every decision valid).
  virtual bool contains(const Candidate& c) const = 0;

  // A point drawn uniformly (as uniformly as the space can).
  virtual Candidate random(Rng& rng) const = 0;
  // `c` with one decision (of more than one choice) changed to another random choice.
  virtual Candidate mutate(const Candidate& c, Rng& rng) const = 0;
  // Each decision taken from `a` or from `b` with equal probability.
  virtual Candidate crossover(const Candidate& a, const Candidate& b, Rng& rng) const = 0;
  // `c` with each decision redrawn at random with probability `probability`.
  virtual Candidate perturb(const Candidate& c, double probability, Rng& rng) const = 0;
  // Every point that differs from `c` in one decision, moved by 1..radius positions in that
  // decision's ordered choices, decision by decision, nearest first within each.
  virtual std::vector<Candidate> neighbours(const Candidate& c, size_t radius) const = 0;
  // The choice taken at each decision, in order: what strategies compare points by, part by part
  // (e.g. the diversity of a batch).
  virtual std::vector<int64_t> decisions(const Candidate& c) const = 0;

  // The readable form records keep beside the candidate (a knob space: knob name -> value).
  virtual nlohmann::json to_json(const Candidate& c) const = 0;
  // The candidate of a readable form; throws UserError saying what does not fit the space.
  virtual Candidate candidate_from_json(const nlohmann::json& json) const = 0;
  // The candidate a record's readable form names, for applying records (search/tuned_config.h): as
  // candidate_from_json, except that a space may also read forms written before it grew.
  virtual Candidate candidate_from_record(const nlohmann::json& json) const { return candidate_from_json(json); }
  // One line for logs and reports ("tile_m=[4,16] order=[1,0] ...").
  virtual std::string describe(const Candidate& c) const = 0;
};

}  // namespace tessel::search
