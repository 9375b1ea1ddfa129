// Encodes the loop summary of a lowered function (costmodels/loop_summary.h) as the flat feature
// vector and the loop tree documented in costmodels/features.h.
#include "costmodels/features.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string_view>

#include "costmodels/loop_summary.h"
#include "support/error.h"

namespace tessel {

using namespace features_detail;

namespace {

double lg(double x) { return std::log2(1.0 + std::abs(x)); }

// Appends values, and their names when asked, so the names can never drift from the layout.
class FeatureWriter {
 public:
  FeatureWriter(std::vector<float>& values, std::vector<std::string>* names) : values_(values), names_(names) {}
  void add(std::string_view prefix, std::string_view field, double value) {
    values_.push_back(std::isfinite(value) ? static_cast<float>(value) : 0.0f);
    if (names_) names_->push_back(std::string(prefix) + std::string(field));
  }

 private:
  std::vector<float>& values_;
  std::vector<std::string>* names_;
};

// Where a node's accesses are seen from: a body, and the position in its path of the outermost
// loop counted as inside the node (the path's length when only the lanes are inside).
struct Scope {
  int body;
  size_t first_loop;
};

// Which stride a node reports: of its own loop (the scope's first loop), of the vector lanes, or
// none (the function).
enum class NodeStride { Loop, Lanes, None };

struct BufferStats {
  int buffer = -1;
  bool stored = false, affine = true;
  double accessed = 0, touched = 0, stride = 0, accesses = 0;
};

// One buffer's accesses within one body, as seen from `scope`.
BufferStats body_buffer_stats(const LoopSummary& s, const Scope& scope, int buffer, NodeStride which) {
  const Body& body = s.bodies[scope.body];
  BufferStats st;
  st.buffer = buffer;
  const Access* first = nullptr;
  std::vector<int64_t> offsets;  // sorted and made distinct below: one allocation, not one per access
  for (const Access& a : body.accesses) {
    if (a.buffer != buffer) continue;
    if (!first) first = &a;
    st.stored |= a.is_store;
    st.affine &= a.affine;
    st.accesses += 1;
    offsets.push_back(a.offset);
  }
  std::sort(offsets.begin(), offsets.end());
  offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  double inside = 1, span = 1 + std::abs(first->vector_stride) * (first->lanes - 1), distinct = 1;
  if (first->vector_stride != 0) distinct = first->lanes;
  for (size_t k = scope.first_loop; k < body.path.size(); ++k) {
    double extent = static_cast<double>(s.loops[body.path[k]].extent);
    inside *= extent;
    span += std::abs(first->strides[k]) * (extent - 1);
    if (first->strides[k] != 0) distinct *= extent;
  }
  span += static_cast<double>(offsets.back() - offsets.front());
  st.touched = std::min(span, distinct * static_cast<double>(offsets.size())) * s.buffers[buffer].element_bytes;
  st.accessed = st.accesses * first->lanes * inside;
  if (which == NodeStride::Loop) st.stride = std::abs(first->strides[scope.first_loop]);
  if (which == NodeStride::Lanes) st.stride = std::abs(first->vector_stride);
  return st;
}

// The buffers accessed in the scopes, aggregated over bodies and ordered as the slots are.
std::vector<BufferStats> buffer_stats(const LoopSummary& s, const std::vector<Scope>& scopes, NodeStride which) {
  std::vector<BufferStats> all(s.buffers.size());
  for (const Scope& scope : scopes) {
    std::vector<bool> accessed(s.buffers.size(), false);
    for (const Access& a : s.bodies[scope.body].accesses) accessed[a.buffer] = true;
    for (int b = 0; b < static_cast<int>(accessed.size()); ++b) {
      if (!accessed[b]) continue;
      BufferStats one = body_buffer_stats(s, scope, b, which);
      BufferStats& acc = all[b];
      acc.buffer = b;
      acc.stored |= one.stored;
      acc.affine &= one.affine;
      acc.accessed += one.accessed;
      acc.accesses += one.accesses;
      acc.touched = std::max(acc.touched, one.touched);
      acc.stride = std::max(acc.stride, one.stride);
    }
  }
  std::erase_if(all, [](const BufferStats& st) { return st.buffer < 0; });
  std::sort(all.begin(), all.end(), [&](const BufferStats& a, const BufferStats& b) {
    if (a.stored != b.stored) return a.stored;
    if (a.accessed != b.accessed) return a.accessed > b.accessed;
    return s.buffers[a.buffer].name < s.buffers[b.buffer].name;
  });
  return all;
}

// A loop is a reduction for these accesses if no stored buffer moves with it but a loaded one does.
bool is_reduction(const std::vector<BufferStats>& stats) {
  bool stored_moves = false, loaded_moves = false;
  for (const BufferStats& st : stats) (st.stored ? stored_moves : loaded_moves) |= st.stride != 0;
  return loaded_moves && !stored_moves;
}

void write_slot(FeatureWriter& w, const std::string& prefix, const BufferStats* st) {
  w.add(prefix, "stride", st ? lg(st->stride) : 0);
  w.add(prefix, "touched_bytes", st ? lg(st->touched) : 0);
  w.add(prefix, "reuse", st && st->touched > 0 ? lg(st->accessed / st->touched) : 0);
}

void write_slots(FeatureWriter& w, const std::string& prefix, const std::vector<BufferStats>& stats) {
  for (int slot = 0; slot < kBufferSlots; ++slot)
    write_slot(w, prefix + "slot" + std::to_string(slot) + ".",
               slot < static_cast<int>(stats.size()) ? &stats[slot] : nullptr);
}

void write_ops(FeatureWriter& w, std::string_view prefix, const OpCounts& ops) {
  w.add(prefix, "float_add", lg(ops.float_add));
  w.add(prefix, "float_mul", lg(ops.float_mul));
  w.add(prefix, "float_fma", lg(ops.float_fma));
  w.add(prefix, "float_other", lg(ops.float_other));
  w.add(prefix, "math_calls", lg(ops.math_calls));
  w.add(prefix, "int_ops", lg(ops.int_ops));
}

// The body doing the most float work (then the most memory traffic, then the first), or -1.
int dominant_body(const LoopSummary& s) {
  int best = -1;
  auto key = [&](const Body& b) {
    return std::pair(b.trips * b.ops.float_ops(), b.trips * (b.stores + b.loads));
  };
  for (size_t i = 0; i < s.bodies.size(); ++i)
    if (best < 0 || key(s.bodies[i]) > key(s.bodies[best])) best = static_cast<int>(i);
  return best;
}

double parallel_extent(const LoopSummary& s, const Body& body) {
  double extent = 1;
  for (int loop : body.path)
    if (s.loops[loop].parallel) extent *= static_cast<double>(s.loops[loop].extent);
  return extent;
}

void write_global(FeatureWriter& w, const LoopSummary& s, const std::vector<double>& arg_elements, int dominant) {
  double float_ops = 0, int_ops = 0, calls = 0, loaded = 0, stored = 0, parallel = 0, vector = 0, guarded = 0;
  for (const Body& b : s.bodies) {
    float_ops += b.trips * b.ops.float_ops();
    int_ops += b.trips * b.ops.int_ops;
    calls += b.trips * b.ops.math_calls;
    for (const Access& a : b.accesses)
      (a.is_store ? stored : loaded) += b.trips * a.lanes * s.buffers[a.buffer].element_bytes;
    if (parallel_extent(s, b) > 1) parallel += b.trips * b.ops.float_ops();
    if (b.lanes > 1) vector += b.trips * b.ops.float_ops();
    if (b.guards > 0) guarded += b.trips;
  }
  double arg_bytes = 0;
  for (size_t i = 0; i < arg_elements.size(); ++i) arg_bytes += arg_elements[i] * s.buffers[i].element_bytes;
  w.add("", "float_ops", lg(float_ops));
  w.add("", "int_ops", lg(int_ops));
  w.add("", "math_calls", lg(calls));
  w.add("", "bytes_loaded", lg(loaded));
  w.add("", "bytes_stored", lg(stored));
  w.add("", "bodies", lg(static_cast<double>(s.bodies.size())));
  w.add("", "loops", lg(static_cast<double>(s.loops.size())));
  w.add("", "local_alloc_bytes", lg(s.local_alloc_bytes));
  w.add("", "local_allocs", lg(s.local_allocs));
  w.add("", "parallel_fraction", float_ops > 0 ? parallel / float_ops : 0);
  w.add("", "vector_fraction", float_ops > 0 ? vector / float_ops : 0);
  w.add("", "guarded_trips", lg(guarded));
  w.add("", "arg_bytes", lg(arg_bytes));
  w.add("", "parallel_extent", dominant >= 0 ? lg(parallel_extent(s, s.bodies[dominant])) : 0);
}

void write_body(FeatureWriter& w, const Body* b) {
  const std::string prefix = "body.";
  w.add(prefix, "stores", b ? lg(b->stores) : 0);
  write_ops(w, prefix, b ? b->ops : OpCounts{});
  w.add(prefix, "loads", b ? lg(b->loads) : 0);
  w.add(prefix, "guards", b ? b->guards : 0);
  w.add(prefix, "depth", b ? static_cast<double>(b->path.size()) : 0);
  w.add(prefix, "trips", b ? lg(b->trips) : 0);
}

void write_buffers(FeatureWriter& w, const LoopSummary& s, const std::vector<BufferStats>& order) {
  for (int slot = 0; slot < kBufferSlots; ++slot) {
    const BufferStats* st = slot < static_cast<int>(order.size()) ? &order[slot] : nullptr;
    const BufferFacts* facts = st ? &s.buffers[st->buffer] : nullptr;
    const std::string prefix = "buffer" + std::to_string(slot) + ".";
    w.add(prefix, "present", st ? 1 : 0);
    w.add(prefix, "stored", st && st->stored ? 1 : 0);
    w.add(prefix, "local", facts && facts->local ? 1 : 0);
    w.add(prefix, "accesses", st ? lg(st->accesses) : 0);
    w.add(prefix, "size_bytes", facts ? lg(facts->elements * facts->element_bytes) : 0);
    w.add(prefix, "affine", st && st->affine ? 1 : 0);
  }
}

// Level `level` of body `b` (0 = lanes, then loops innermost first), its buffers in `order`.
void write_level(FeatureWriter& w, const LoopSummary& s, int b, int level, const std::vector<BufferStats>& order) {
  const std::string prefix = "level" + std::to_string(level) + ".";
  const Body* body = b >= 0 ? &s.bodies[b] : nullptr;
  size_t depth = body ? body->path.size() : 0;
  if (!body || static_cast<size_t>(level) > depth) {
    for (const char* field : {"extent", "parallel", "reduction", "inner_iterations", "trips"}) w.add(prefix, field, 0);
    write_slots(w, prefix, {});
    return;
  }
  Scope scope{b, depth - level};
  std::vector<BufferStats> stats = buffer_stats(s, {scope}, level == 0 ? NodeStride::Lanes : NodeStride::Loop);
  std::vector<BufferStats> ordered;
  for (const BufferStats& slot : order)
    ordered.push_back(*std::find_if(stats.begin(), stats.end(), [&](const BufferStats& st) { return st.buffer == slot.buffer; }));
  double extent = level == 0 ? body->lanes : static_cast<double>(s.loops[body->path[depth - level]].extent);
  double inner = body->lanes, outer = 1;
  for (size_t k = 0; k < depth; ++k) {
    double e = static_cast<double>(s.loops[body->path[k]].extent);
    (k >= depth - level ? inner : outer) *= e;
  }
  w.add(prefix, "extent", lg(extent));
  w.add(prefix, "parallel", level > 0 && s.loops[body->path[depth - level]].parallel ? 1 : 0);
  w.add(prefix, "reduction", level > 0 && is_reduction(ordered) ? 1 : 0);
  w.add(prefix, "inner_iterations", lg(inner));
  w.add(prefix, "trips", lg(outer * (level == 0 ? 1 : extent)));
  write_slots(w, prefix, ordered);
}

std::vector<float> encode_flat(const LoopSummary& s, const std::vector<double>& arg_elements,
                               std::vector<std::string>* names) {
  std::vector<float> values;
  FeatureWriter w(values, names);
  int b = dominant_body(s);
  write_global(w, s, arg_elements, b);
  write_body(w, b >= 0 ? &s.bodies[b] : nullptr);
  std::vector<BufferStats> order;
  if (b >= 0) order = buffer_stats(s, {Scope{b, s.bodies[b].path.size()}}, NodeStride::Lanes);
  if (order.size() > kBufferSlots) order.resize(kBufferSlots);
  write_buffers(w, s, order);
  for (int level = 0; level < kLoopLevels; ++level) write_level(w, s, b, level, order);
  TESSEL_CHECK(values.size() == kFlatFeatureLength, "flat features have ", values.size(), " values");
  return values;
}

// The loop tree: a node per loop and per body under the function's root node.
class TreeEncoder {
 public:
  explicit TreeEncoder(const LoopSummary& s) : s_(s) {}

  LoopTree encode() {
    std::vector<Scope> scopes;
    for (size_t b = 0; b < s_.bodies.size(); ++b) scopes.push_back(Scope{static_cast<int>(b), 0});
    int root = add_node(node_kind(0), 1, 1, scopes, NodeStride::None, false);
    add_children(root, s_.top, 1);
    return std::move(tree_);
  }

 private:
  void add_children(int parent, const std::vector<ChildRef>& children, double trips) {
    for (const ChildRef& c : children) {
      int child = c.is_loop ? add_loop(c.index, trips) : add_body(c.index);
      tree_.nodes[parent].children.push_back(child);
    }
  }

  int add_loop(int loop, double outer_trips) {
    const SummaryLoop& l = s_.loops[loop];
    std::vector<Scope> scopes;
    collect_bodies(loop, scopes);
    for (Scope& scope : scopes) {
      const std::vector<int>& path = s_.bodies[scope.body].path;
      scope.first_loop = static_cast<size_t>(std::find(path.begin(), path.end(), loop) - path.begin());
    }
    double trips = outer_trips * static_cast<double>(l.extent);
    int node = add_node(node_kind(1), l.extent, trips, scopes, NodeStride::Loop, l.parallel);
    add_children(node, l.children, trips);
    return node;
  }

  int add_body(int body) {
    const Body& b = s_.bodies[body];
    return add_node(node_kind(2), b.lanes, b.trips, {Scope{body, b.path.size()}}, NodeStride::Lanes, false, &b);
  }

  // Appends a node; `body` is given for body nodes, whose own statement counts the others lack.
  int add_node(std::vector<float> features, double extent, double trips, const std::vector<Scope>& scopes,
               NodeStride stride, bool parallel, const Body* body = nullptr) {
    std::vector<BufferStats> stats = buffer_stats(s_, scopes, stride);
    double float_ops = 0;
    for (const Scope& scope : scopes) {
      const Body& b = s_.bodies[scope.body];
      double inside = 1;
      for (size_t k = scope.first_loop; k < b.path.size(); ++k) inside *= static_cast<double>(s_.loops[b.path[k]].extent);
      float_ops += b.ops.float_ops() * inside;
    }
    FeatureWriter w(features, nullptr);
    w.add("", "extent", lg(extent));
    w.add("", "parallel", parallel ? 1 : 0);
    w.add("", "reduction", stride == NodeStride::Loop && is_reduction(stats) ? 1 : 0);
    w.add("", "trips", lg(trips));
    w.add("", "float_ops", lg(float_ops));
    w.add("", "stores", body ? lg(body->stores) : 0);
    write_ops(w, "", body ? body->ops : OpCounts{});
    write_slots(w, "", stats);
    TESSEL_CHECK(features.size() == kTreeNodeFeatures, "tree node has ", features.size(), " features");
    tree_.nodes.push_back(LoopTreeNode{std::move(features), {}});
    return static_cast<int>(tree_.nodes.size()) - 1;
  }

  static std::vector<float> node_kind(int which) {
    std::vector<float> f(3, 0.0f);
    f[which] = 1.0f;
    return f;
  }

  void collect_bodies(int loop, std::vector<Scope>& out) const {
    for (const ChildRef& c : s_.loops[loop].children) {
      if (c.is_loop) collect_bodies(c.index, out);
      else out.push_back(Scope{c.index, 0});
    }
  }

  const LoopSummary& s_;
  LoopTree tree_;
};

std::vector<double> argument_elements(const LoweredFunc& func) {
  std::vector<double> elements;
  for (const FuncArg& arg : func.args) {
    double n = 1;
    for (int64_t d : arg.shape) n *= static_cast<double>(d);
    elements.push_back(n);
  }
  return elements;
}

}  // namespace

ProgramFeatures extract_features(const LoweredFunc& func) {
  LoopSummary summary = summarize_loops(func);
  return ProgramFeatures{encode_flat(summary, argument_elements(func), nullptr), TreeEncoder(summary).encode()};
}

const std::vector<std::string>& flat_feature_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    encode_flat(LoopSummary{}, {}, &out);
    return out;
  }();
  return names;
}

namespace {

bool names_feature(const std::string& item, const std::string& name) {
  if (name.rfind(item, 0) == 0) return true;
  size_t start = 0;
  while (start <= name.size()) {
    size_t dot = name.find('.', start);
    if (dot == std::string::npos) dot = name.size();
    if (name.compare(start, dot - start, item) == 0) return true;
    start = dot + 1;
  }
  return false;
}

}  // namespace

std::vector<int> select_flat_features(const std::string& spec) {
  const std::vector<std::string>& names = flat_feature_names();
  std::set<int> chosen;
  size_t start = 0;
  while (start < spec.size()) {
    size_t comma = spec.find(',', start);
    if (comma == std::string::npos) comma = spec.size();
    std::string item = spec.substr(start, comma - start);
    start = comma + 1;
    if (item.empty()) continue;
    int matched = 0;
    for (size_t i = 0; i < names.size(); ++i)
      if (names_feature(item, names[i])) chosen.insert(static_cast<int>(i)), ++matched;
    if (matched == 0)
      user_error("feature group \"", item, "\" names no program feature; use a name prefix (e.g. level, level0., ",
                 "buffer, body.) or a field (e.g. stride, touched_bytes, reuse, extent); see costmodels/features.h");
  }
  return std::vector<int>(chosen.begin(), chosen.end());
}

}  // namespace tessel
