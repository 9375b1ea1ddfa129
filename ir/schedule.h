// Schedules: how a tensor expression is computed, separate from what it computes (TVM's
// separation of algorithm and schedule).
//
// A Schedule has one Stage per operation. A stage's loop nest starts as its operation's axes
// (data-parallel, then reduction) and is reshaped by primitives: split, tile, fuse and reorder
// change the loops; vectorize, unroll, parallel and bind choose how a loop runs (its ForKind);
// pragma attaches a hint to a loop; compute_at, compute_inline and compute_root choose where the
// stage runs relative to its consumers; set_scope chooses the memory its result lives in;
// cache_read and cache_write add stages that stage data in local buffers. Illegal requests throw
// UserError naming the stage, the axis and the rule broken. A Stage is read through `->` (a const
// StageNode); only its primitives change it.
//
//   Schedule s = create_schedule({C});
//   auto [io, jo, ii, ji] = s[C].tile(s[C].axis(0), s[C].axis(1), 32, 32);
//   s[C].vectorize(ji);
//   s[C].parallel(io);
//   s[C].pragma(jo, "unroll_max_step", 16);   // an AttrStmt "pragma_unroll_max_step" around the loop
//   s[B].set_scope("shared");                 // B's buffer is allocated in "shared" memory
//   s[C].bind(io, "blockIdx.x");              // a ThreadBinding loop (GPU back ends only)
#pragma once
#include <array>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

#include "ir/stmt.h"
#include "ir/tensor.h"

namespace tessel {

enum class AttachKind : uint8_t { Root, Inline, At };

// How a loop kind is spelled as a schedule annotation, in messages and in knob values (the
// spellings records store): none (Serial), parallel, vectorize, unroll, bind (ThreadBinding).
const char* annotation_name(ForKind kind);
// The loop kind of an annotation a knob can choose: none, unroll, vectorize or parallel (a bind
// needs a thread tag, so it is no knob value); throws UserError for anything else.
ForKind parse_annotation(const std::string& text);

// parent = outer * factor + inner, with outer over ceil(extent / factor) and inner over factor
// (or factor derived from nparts). Non-dividing splits are guarded during lowering.
struct SplitRelation {
  IterVar parent, outer, inner;
  int64_t factor;  // 0 when given by nparts
  int64_t nparts;  // 0 when given by factor
};

// fused = outer * extent(inner) + inner.
struct FuseRelation {
  IterVar outer, inner, fused;
};

using IterRelation = std::variant<SplitRelation, FuseRelation>;

// A pragma on a loop: lowering wraps the loop in an AttrStmt "pragma_<key>" with this value.
struct Pragma {
  std::string key;
  Expr value;
};

// A software prefetch at a loop (Stage::prefetch): each iteration hints the part of `tensor` that
// the iteration `offset` later reads.
struct Prefetch {
  Tensor tensor;
  int offset;
};

// A prefetch of all of `tensor` spread over a stage's loops (Stage::prefetch_whole).
struct WholePrefetch {
  Tensor tensor;
  int64_t max_lines_per_step;
  int64_t lead_bytes = 0;  // how far ahead of its even place each share starts
};

struct StageNode {
  Tensor op;      // the operation computed now (cache primitives may replace it)
  Tensor origin;  // the operation the stage was created for
  std::vector<IterVar> all_axes;   // root axes and every axis a relation created
  std::vector<IterVar> leaf_axes;  // the loop nest, outermost first
  std::vector<IterRelation> relations;
  std::unordered_map<const IterVarNode*, ForKind> for_kinds;        // loops that are not Serial
  std::unordered_map<const IterVarNode*, std::string> thread_tags;  // of the ThreadBinding loops
  std::unordered_map<const IterVarNode*, std::vector<Pragma>> pragmas;
  std::unordered_map<const IterVarNode*, std::vector<Prefetch>> prefetches;
  std::vector<WholePrefetch> whole_prefetches;
  std::unordered_set<const IterVarNode*> past_edge;  // root axes computed past the edge (compute_past_edge)
  std::optional<MemoryScope> scope;  // from set_scope; unset: "local" for a realized intermediate
  AttachKind attach = AttachKind::Root;
  std::weak_ptr<const StageNode> attach_stage;  // for AttachKind::At
  IterVar attach_axis;                          // a leaf axis of attach_stage
  IterVar store_axis;  // from store_at: the leaf of attach_stage, outside attach_axis, storage lives at
  bool is_output = false;

  // How the loop of `axis` runs: its annotation, Serial if it has none.
  ForKind for_kind(const IterVar& axis) const;
};

class Stage {
 public:
  const StageNode* operator->() const { return node_.get(); }
  const StageNode* get() const { return node_.get(); }
  bool same_as(const Stage& other) const { return node_ == other.node_; }
  const std::string& name() const { return node_->op.name(); }

  const IterVar& axis(int i) const;         // the current operation's data-parallel axis i
  const IterVar& reduce_axis(int i) const;  // the current operation's reduction axis i

  std::pair<IterVar, IterVar> split(const IterVar& axis, int64_t factor);
  std::pair<IterVar, IterVar> split_nparts(const IterVar& axis, int64_t nparts);
  // {x_outer, y_outer, x_inner, y_inner}, in that loop order.
  std::array<IterVar, 4> tile(const IterVar& x, const IterVar& y, int64_t x_factor, int64_t y_factor);
  IterVar fuse(const IterVar& outer, const IterVar& inner);  // adjacent loops, outer first
  void reorder(const std::vector<IterVar>& order);

  void compute_at(const Stage& parent, const IterVar& axis);
  // Halide's store_at, for a stage computed at (parent, compute_axis): its storage lives at
  // parent's loop `axis`, the loop directly outside compute_axis, whose iterations then share
  // it. Lowering makes that a sliding window: each iteration of compute_axis after the first
  // computes only the part of the region the previous one did not (a row-tiled consumer of a 3x3
  // window computes each producer row once, not again for every tile its halo reaches). The
  // storage is folded along the axis the region slides on to the next power of two of the
  // region's extent, a ring buffer of the rows in use. compute_axis must run serially and the
  // region's start move forward only. Call after compute_at (which resets it).
  void store_at(const Stage& parent, const IterVar& axis);
  void compute_inline();
  void compute_root();

  void vectorize(const IterVar& axis);
  void unroll(const IterVar& axis);
  void parallel(const IterVar& axis);
  // Runs the loop of a data-parallel `axis` on the threads of `thread_tag` (one of thread_tags()
  // in ir/attr.h): lowering makes it a ThreadBinding loop inside a thread_extent attribute
  // (virtual_thread for "vthread"). Each tag binds at most one loop of a stage. Only GPU-style
  // back ends compile it; the interpreters run it as a serial loop.
  void bind(const IterVar& axis, const std::string& thread_tag);
  // A hint `key` (letters, digits, '_') with a constant value on the loop of `axis`: lowering
  // wraps the loop in an AttrStmt "pragma_<key>". Back ends that do not know a pragma ignore it.
  void pragma(const IterVar& axis, const std::string& key, Expr value = Expr(1));
  // Software prefetch (TVM's prefetch, Halide's Func::prefetch): each iteration of the loop of
  // `axis` first hints the cache lines of `tensor` (one the stage reads inside that loop) that
  // the iteration `offset` (>= 1) later will read (passes/lower/prefetch.h). For weights that
  // come from memory: pick the offset so that `offset` iterations take about a memory latency.
  void prefetch(const Tensor& tensor, const IterVar& axis, int offset);
  // Prefetch of all of `tensor` (any tensor the kernel takes, read here or not) into the outer
  // caches (prefetch_l2), spread evenly over the stage's loops: a later kernel's weights fetched
  // from memory while this compute-bound one runs (passes/graph/prefetch_weights.cpp). Lowering
  // puts an equal share at the top of each iteration of the outermost loop whose iterations in
  // all (the loops around the stage's included) leave each share at most `max_lines_per_step`
  // 64-byte lines, among the loops from the outermost inwards that are serial or parallel with a
  // constant extent (the innermost of them if none does). Short bursts: a core stalls when its
  // prefetches outnumber the misses it can have in flight. With `lead_bytes`, each share starts
  // that far ahead of its place (the last ones clamped to the tensor's end): for weights the stage
  // itself reads once in memory order at the loops' pace, which then arrive that far ahead of the
  // reads (a k×k convolution's kernel, ops/conv2d_nchwc.cpp).
  void prefetch_whole(const Tensor& tensor, int64_t max_lines_per_step = 16, int64_t lead_bytes = 0);
  // For a stage computed at a consumer's loop: the points of its data-parallel root `axis` that
  // the consumer's tile reaches past the tensor's edge (a non-dividing split) are computed, not
  // guarded away point by point, so the partial tile runs the whole tile's vector code. Only for
  // stages whose reads there stay in bounds: inputs padded to whole tiles, as GEMM's panels are.
  void compute_past_edge(const IterVar& axis);
  // The memory scope (ir/memory_scope.h) of the buffer this stage's result is realized in. Not
  // for placeholders and outputs, whose storage is the function's global arguments.
  void set_scope(const std::string& scope);

 private:
  friend class Schedule;
  explicit Stage(std::shared_ptr<StageNode> node) : node_(std::move(node)) {}
  size_t leaf_position(const IterVar& axis, const char* primitive) const;
  void annotate(const IterVar& axis, ForKind kind, const char* primitive);
  std::shared_ptr<StageNode> node_;
};

class Schedule {
 public:
  Schedule() = default;
  explicit Schedule(std::vector<Tensor> outputs);

  // The stage of a tensor, found by the tensor the user holds even after cache primitives
  // replaced its operation.
  Stage operator[](const Tensor& t) const;
  const std::vector<Stage>& stages() const { return stages_; }  // producers first
  const std::vector<Tensor>& outputs() const { return outputs_; }
  // The operation now computing what `t` named when the user created it.
  Tensor current(const Tensor& t) const;
  // Whether `t` is one of the schedule's tensors (an operation the outputs depend on).
  bool contains(const Tensor& t) const { return t.defined() && stage_of(t.get()); }

  // A new stage copying `t` into a local buffer, read by `readers` instead of `t`.
  Tensor cache_read(const Tensor& t, const std::vector<Tensor>& readers);
  // A new stage computing `t`'s body into a local buffer; `t` becomes a copy of it. Returns the
  // new (cache) tensor.
  Tensor cache_write(const Tensor& t);

 private:
  const Stage* stage_of(const OperationNode* op) const;
  void replace_ops(const std::unordered_map<const OperationNode*, Tensor>& replaced);
  void insert_stage_before(const Stage& consumer, Stage stage);

  std::vector<Tensor> outputs_;
  std::vector<Stage> stages_;
  std::unordered_map<const OperationNode*, Stage> by_op_;  // current and original ops
};

Schedule create_schedule(std::vector<Tensor> outputs);

}  // namespace tessel
