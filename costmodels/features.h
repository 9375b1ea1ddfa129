// Program features for cost models: numbers describing a lowered loop program (ir/stmt.h
// LoweredFunc) rather than the knobs that produced it, so that a model trained on one workload's
// candidates transfers to another's (AutoTVM's "knob-agnostic" features, after its itervar
// features). Every count is a log: f(x) = log2(1 + |x|), so features stay in a small range across
// workloads; fractions and flags stay as they are.
//
// Vocabulary. A *body* is the group of stores whose innermost enclosing loop is the same loop (an
// unrolled loop has become repeated stores in its body). Lowering turns vectorized loops into
// vector loads and stores, so a body's vector lanes act as one more loop, the innermost, called
// level 0. For a buffer accessed in a body, its *stride* with respect to a loop is the change of the
// element index when the loop variable grows by one (from the index's linear form; indices through
// floor division count the divided coefficient), its *touched bytes* at a loop are the distinct
// bytes one whole execution of that loop (with everything inside it) accesses, and its *reuse*
// there is elements accessed / elements touched.
//
// Buffer slots. The buffers of a body (or of a subtree, in the tree form) are ordered: first those
// stored to, then the others by decreasing accessed elements, then by name; the first
// kBufferSlots are encoded, an absent slot is all zeros.
//
// The flat vector (ProgramFeatures::flat, kFlatFeatureLength values, names by flat_feature_names()):
//   global block (kGlobalFeatures), whole program, weighted by trip counts:
//     float_ops (adds, muls, 2 per FMA, others), int_ops (index arithmetic, comparisons), math_calls,
//     bytes_loaded, bytes_stored, bodies, loops, local_alloc_bytes, local_allocs,
//     parallel_fraction (of float ops under a parallel loop), vector_fraction (of float ops in vector
//     statements), guarded_trips (executions of bodies under an if), arg_bytes (all argument
//     buffers), parallel_extent (of the parallel loop around the dominant body)
//   dominant body block (kBodyFeatures): the body doing the most float work, per execution:
//     stores, float_add, float_mul, float_fma, float_other, math_calls, int_ops, loads, guards
//     (ifs around it), depth (loops around it), trips (its executions)
//   buffer slots of the dominant body (kBufferSlots x kBufferFeatures):
//     present, stored, local, accesses (per execution), size_bytes, affine (every index linear)
//   loop levels of the dominant body (kLoopLevels x kLevelFeatures), level 0 = vector lanes, then
//   its loops innermost first; loops beyond the last level are dropped (trips keeps their effect):
//     extent, parallel, reduction (no stored buffer moves with it), inner_iterations (product of
//     extents of this level and those inside), trips (product of this level and those outside),
//     then per buffer slot: stride, touched_bytes, reuse.
//
// The tree (ProgramFeatures::tree), for tree-structured models: node 0 is the function, a loop's
// children are the loops and bodies directly inside it in program order, bodies are leaves. Every
// node has kTreeNodeFeatures values:
//   is_root, is_loop, is_body, extent (loop extent, body lanes), parallel, reduction,
//   trips (executions of the node), float_ops (per execution of the node, all its subtree),
//   stores, float_add, float_mul, float_fma, float_other, math_calls, int_ops (bodies only, per
//   execution), then per buffer slot of the subtree: stride (of the loop's variable; of the lanes
//   for a body), touched_bytes, reuse (per execution of the node).
#pragma once
#include <string>
#include <vector>

#include "ir/stmt.h"

namespace tessel {

inline constexpr int kBufferSlots = 4;
inline constexpr int kLoopLevels = 8;
inline constexpr int kGlobalFeatures = 14;
inline constexpr int kBodyFeatures = 11;
inline constexpr int kBufferFeatures = 6;
inline constexpr int kLevelSlotFeatures = 3;  // stride, touched_bytes, reuse
inline constexpr int kLevelFeatures = 5 + kBufferSlots * kLevelSlotFeatures;
inline constexpr int kFlatFeatureLength =
    kGlobalFeatures + kBodyFeatures + kBufferSlots * kBufferFeatures + kLoopLevels * kLevelFeatures;
inline constexpr int kTreeNodeFeatures = 15 + kBufferSlots * kLevelSlotFeatures;

struct LoopTreeNode {
  std::vector<float> features;  // kTreeNodeFeatures values
  std::vector<int> children;    // indices into LoopTree::nodes, in program order
};

// A loop nest as a tree; nodes[0] is the root and every child comes after its parent.
struct LoopTree {
  std::vector<LoopTreeNode> nodes;
};

struct ProgramFeatures {
  std::vector<float> flat;  // kFlatFeatureLength values
  LoopTree tree;
};

// The features of a lowered function; deterministic, every value finite.
ProgramFeatures extract_features(const LoweredFunc& func);

// The name of each flat feature, e.g. "level2.slot1.stride", in order: for reports, ablations
// (masking groups of features by prefix) and debugging.
const std::vector<std::string>& flat_feature_names();

// For feature ablations: the positions of the flat features a spec names. The spec is a
// comma-separated list; an item names every feature whose name starts with it ("level", "buffer2.",
// "body.") or has it as one of its dot-separated parts ("stride", "touched_bytes", "reuse"). Empty
// spec: none. Throws UserError for an item that names no feature.
std::vector<int> select_flat_features(const std::string& spec);

}  // namespace tessel
