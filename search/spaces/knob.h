// Knobs: the independent choices a schedule template declares. Each knob has a finite, ordered
// list of choices, stored as JSON values so that every kind serializes the same way:
//   split       [f0, f1, ..., fn-1], one factorization of an extent (product == extent)
//   reorder     [p0, p1, ...], one candidate permutation of a template's loops
//   annotate    "none" | "unroll" | "vectorize" | "parallel" (annotation_name of a ForKind)
//   categorical any JSON scalar (a panel width, a flag, a name)
// Choice 0 is never special; a template names its default choice by value.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/schedule.h"

namespace tessel::search {

enum class KnobKind { Split, Reorder, Annotate, Categorical };
const char* knob_kind_name(KnobKind kind);

struct Knob {
  std::string name;
  KnobKind kind;
  std::vector<nlohmann::json> choices;  // never empty
  // Values that make the same program as one of the choices, with that choice's position: what
  // fold_equivalent_choices took out. Records that name them still read as that choice.
  std::vector<std::pair<nlohmann::json, size_t>> aliases;

  size_t size() const { return choices.size(); }
  // The position of `value` among the choices, or of the choice it is an alias of; throws
  // UserError naming the knob if neither.
  size_t index_of(const nlohmann::json& value) const;
};

// Every ordered factorization of `extent` into `parts` factors whose factors after the first are
// at most `max_inner` (0: no limit). The first factor is the outermost loop. Keeping inner
// factors small bounds what templates unroll, so no configuration takes minutes to compile.
Knob split_knob(std::string name, int64_t extent, int parts, int64_t max_inner = 0);
// Candidate orders, each a permutation of 0..n-1.
Knob reorder_knob(std::string name, std::vector<std::vector<int>> orders);
Knob annotate_knob(std::string name, std::vector<ForKind> choices);
Knob categorical_knob(std::string name, std::vector<nlohmann::json> values);

// `knob` with each choice for which `same(earlier, choice)` holds for an earlier kept choice taken
// out and made an alias of it. A template folds choices that cannot change its workload's program
// (unrolling a loop of one iteration), so that the tuner does not measure one program many times.
Knob fold_equivalent_choices(Knob knob, const std::function<bool(const nlohmann::json&, const nlohmann::json&)>& same);

}  // namespace tessel::search
