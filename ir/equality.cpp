// Structural comparison and hashing. The comparator visits tree `a` and keeps the node of tree `b`
// at the same position in `other_`; the hasher mixes the same facts the comparator checks, so
// equal trees hash equally. Both number bound variables and buffers by binding order when
// matching them by position.
#include "ir/equality.h"

#include <bit>
#include <unordered_map>

#include "ir/visitor.h"

namespace tessel {

namespace {

uint64_t type_bits(DataType t) {
  return static_cast<uint64_t>(t.code) | static_cast<uint64_t>(t.bits) << 8 | static_cast<uint64_t>(t.lanes) << 16;
}

// A one-to-one matching of the variables (or buffers) tree a binds onto those tree b binds.
template <typename Key>
class Bijection {
 public:
  void bind(const Key* a, const Key* b) {
    forward_[a] = b;
    backward_[b] = a;
  }
  // Bound keys match their partner only; unbound keys match themselves.
  bool matches(const Key* a, const Key* b) const {
    auto it = forward_.find(a);
    if (it != forward_.end()) return it->second == b;
    return backward_.count(b) == 0 && a == b;
  }
  bool empty() const { return forward_.empty(); }

 private:
  std::unordered_map<const Key*, const Key*> forward_, backward_;
};

class StructuralComparator : public IRVisitor {
 public:
  explicit StructuralComparator(bool map_bound) : map_bound_(map_bound) {}

  bool equal(const Expr& a, const Expr& b) {
    if (!equal_) return false;
    if (!a.defined() || !b.defined()) return check(a.defined() == b.defined());
    if (a.same_as(b) && vars_.empty() && buffers_.empty()) return true;
    if (a->kind != b->kind || a.type() != b.type()) return check(false);
    return visit_paired(a, b.get());
  }

  bool equal(const Stmt& a, const Stmt& b) {
    if (!equal_) return false;
    if (!a.defined() || !b.defined()) return check(a.defined() == b.defined());
    if (a.same_as(b) && vars_.empty() && buffers_.empty()) return true;
    if (a->kind != b->kind) return check(false);
    return visit_paired(a, b.get());
  }

  void bind_buffer(const Buffer& a, const Buffer& b) {
    check(a.dtype() == b.dtype() && a.scope() == b.scope());
    if (map_bound_) buffers_.bind(a.get(), b.get());
  }

 protected:
  template <typename H>
  bool visit_paired(const H& a, const Node* b) {
    const Node* saved = other_;
    other_ = b;
    visit(a);
    other_ = saved;
    return equal_;
  }
  template <typename T>
  const T* other() const { return static_cast<const T*>(other_); }
  bool check(bool condition) { return equal_ = equal_ && condition; }

  void bind_var(const Var& a, const Var& b) {
    check(a.type() == b.type());
    if (map_bound_) vars_.bind(a.operator->(), b.operator->());
  }
  void equal_list(const std::vector<Expr>& a, const std::vector<Expr>& b) {
    if (!check(a.size() == b.size())) return;
    for (size_t i = 0; i < a.size(); ++i) equal(a[i], b[i]);
  }
  void equal_buffer(const Buffer& a, const Buffer& b) { check(buffers_.matches(a.get(), b.get())); }

  template <typename T>
  void binary(const T* op) {
    equal(op->a, other<T>()->a);
    equal(op->b, other<T>()->b);
  }
#define TESSEL_COMPARE_BINARY(T) \
  void visit_node(const T* op) override { binary(op); }
  TESSEL_BINARY_NODES(TESSEL_COMPARE_BINARY)
#undef TESSEL_COMPARE_BINARY

  void visit_node(const IntImm* op) override { check(op->value == other<IntImm>()->value); }
  void visit_node(const FloatImm* op) override {
    check(std::bit_cast<uint64_t>(op->value) == std::bit_cast<uint64_t>(other<FloatImm>()->value));
  }
  void visit_node(const VarNode* op) override { check(vars_.matches(op, other<VarNode>())); }
  void visit_node(const Not* op) override { equal(op->a, other<Not>()->a); }
  void visit_node(const Select* op) override {
    auto* o = other<Select>();
    equal(op->cond, o->cond);
    equal(op->true_value, o->true_value);
    equal(op->false_value, o->false_value);
  }
  void visit_node(const Cast* op) override { equal(op->value, other<Cast>()->value); }
  void visit_node(const Call* op) override {
    check(op->intrinsic == other<Call>()->intrinsic);
    equal_list(op->args, other<Call>()->args);
  }
  void visit_node(const TensorRead* op) override {
    check(op->op == other<TensorRead>()->op);
    equal_list(op->indices, other<TensorRead>()->indices);
  }
  void visit_node(const Reduce* op) override {
    auto* o = other<Reduce>();
    if (!check(op->combiner == o->combiner && op->axes.size() == o->axes.size())) return;
    for (size_t i = 0; i < op->axes.size(); ++i) {
      const IterVar &x = op->axes[i], &y = o->axes[i];
      check(x->kind == y->kind);
      equal(x->dom.min, y->dom.min);
      equal(x->dom.extent, y->dom.extent);
      bind_var(x.var(), y.var());
    }
    equal(op->source, o->source);
    equal(op->condition, o->condition);
    equal(op->init, o->init);
  }
  void visit_node(const Load* op) override {
    equal_buffer(op->buffer, other<Load>()->buffer);
    equal(op->index, other<Load>()->index);
  }
  void visit_node(const Ramp* op) override {
    auto* o = other<Ramp>();
    check(op->lanes == o->lanes);
    equal(op->base, o->base);
    equal(op->stride, o->stride);
  }
  void visit_node(const Broadcast* op) override {
    check(op->lanes == other<Broadcast>()->lanes);
    equal(op->value, other<Broadcast>()->value);
  }
  void visit_node(const Let* op) override {
    auto* o = other<Let>();
    equal(op->value, o->value);
    bind_var(op->var, o->var);
    equal(op->body, o->body);
  }

  void visit_node(const For* op) override {
    auto* o = other<For>();
    check(op->kind == o->kind && op->thread_tag == o->thread_tag);
    equal(op->min, o->min);
    equal(op->extent, o->extent);
    bind_var(op->var, o->var);
    equal(op->body, o->body);
  }
  void visit_node(const Store* op) override {
    auto* o = other<Store>();
    equal_buffer(op->buffer, o->buffer);
    equal(op->index, o->index);
    equal(op->value, o->value);
  }
  void visit_node(const Provide* op) override {
    auto* o = other<Provide>();
    check(op->op == o->op);
    equal_list(op->indices, o->indices);
    equal(op->value, o->value);
  }
  void visit_node(const Realize* op) override {
    auto* o = other<Realize>();
    if (!check(op->op == o->op && op->scope == o->scope && op->bounds.size() == o->bounds.size())) return;
    for (size_t i = 0; i < op->bounds.size(); ++i) {
      equal(op->bounds[i].min, o->bounds[i].min);
      equal(op->bounds[i].extent, o->bounds[i].extent);
    }
    equal(op->body, o->body);
  }
  void visit_node(const Allocate* op) override {
    auto* o = other<Allocate>();
    equal(op->size, o->size);
    bind_buffer(op->buffer, o->buffer);
    equal(op->body, o->body);
  }
  void visit_node(const IfThenElse* op) override {
    auto* o = other<IfThenElse>();
    equal(op->cond, o->cond);
    equal(op->then_case, o->then_case);
    equal(op->else_case, o->else_case);
  }
  void visit_node(const Seq* op) override {
    auto* o = other<Seq>();
    if (!check(op->stmts.size() == o->stmts.size())) return;
    for (size_t i = 0; i < op->stmts.size(); ++i) equal(op->stmts[i], o->stmts[i]);
  }
  void visit_node(const LetStmt* op) override {
    auto* o = other<LetStmt>();
    equal(op->value, o->value);
    bind_var(op->var, o->var);
    equal(op->body, o->body);
  }
  void visit_node(const Evaluate* op) override { equal(op->value, other<Evaluate>()->value); }
  void visit_node(const AttrStmt* op) override {
    auto* o = other<AttrStmt>();
    if (!check(op->key == o->key && op->subject.index() == o->subject.index())) return;
    if (auto* var = std::get_if<Var>(&op->subject)) equal(*var, std::get<Var>(o->subject));
    if (auto* buffer = std::get_if<Buffer>(&op->subject)) equal_buffer(*buffer, std::get<Buffer>(o->subject));
    if (auto* name = std::get_if<std::string>(&op->subject)) check(*name == std::get<std::string>(o->subject));
    equal(op->value, o->value);
    equal(op->body, o->body);
  }

 private:
  const bool map_bound_;
  const Node* other_ = nullptr;
  bool equal_ = true;
  Bijection<VarNode> vars_;
  Bijection<BufferNode> buffers_;
};

class StructuralHasher : public IRVisitor {
 public:
  explicit StructuralHasher(bool map_bound) : map_bound_(map_bound) {}

  void hash(const Expr& e) {
    if (!e.defined()) return mix(0x5bd1e995);
    mix(static_cast<uint64_t>(e->kind) + 1);
    mix(type_bits(e.type()));
    visit(e);
  }
  void hash(const Stmt& s) {
    if (!s.defined()) return mix(0x5bd1e995);
    mix(static_cast<uint64_t>(s->kind) + 1);
    visit(s);
  }
  void bind_buffer(const Buffer& b) {
    mix(type_bits(b.dtype()));
    mix(std::hash<std::string>()(b.scope().name()));
    if (map_bound_) buffers_.emplace(b.get(), buffers_.size());
  }
  void mix(uint64_t v) {
    // splitmix64 finalizer over the running state: order-sensitive and well spread.
    uint64_t z = state_ ^ (v + 0x9e3779b97f4a7c15ULL + (state_ << 6) + (state_ >> 2));
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    state_ = z ^ (z >> 31);
  }
  size_t result() const { return static_cast<size_t>(state_); }

 protected:
  // A bound variable or buffer hashes as its binding number, anything else as its address.
  template <typename Key>
  void mix_ref(const std::unordered_map<const Key*, size_t>& bound, const Key* key) {
    auto it = bound.find(key);
    if (it != bound.end()) {
      mix(1);
      mix(it->second);
    } else {
      mix(2);
      mix(reinterpret_cast<uintptr_t>(key));
    }
  }
  void bind_var(const Var& v) {
    mix(type_bits(v.type()));
    if (map_bound_) vars_.emplace(v.operator->(), vars_.size());
  }
  void hash_list(const std::vector<Expr>& exprs) {
    mix(exprs.size());
    for (const Expr& e : exprs) hash(e);
  }

#define TESSEL_HASH_BINARY(T)               \
  void visit_node(const T* op) override { \
    hash(op->a);                            \
    hash(op->b);                            \
  }
  TESSEL_BINARY_NODES(TESSEL_HASH_BINARY)
#undef TESSEL_HASH_BINARY

  void visit_node(const IntImm* op) override { mix(static_cast<uint64_t>(op->value)); }
  void visit_node(const FloatImm* op) override { mix(std::bit_cast<uint64_t>(op->value)); }
  void visit_node(const VarNode* op) override { mix_ref(vars_, op); }
  void visit_node(const Not* op) override { hash(op->a); }
  void visit_node(const Select* op) override {
    hash(op->cond);
    hash(op->true_value);
    hash(op->false_value);
  }
  void visit_node(const Cast* op) override { hash(op->value); }
  void visit_node(const Call* op) override {
    mix(std::hash<std::string>()(op->name));
    hash_list(op->args);
  }
  void visit_node(const TensorRead* op) override {
    mix(reinterpret_cast<uintptr_t>(op->op.get()));
    hash_list(op->indices);
  }
  void visit_node(const Reduce* op) override {
    mix(static_cast<uint64_t>(op->combiner));
    mix(op->axes.size());
    for (const IterVar& iv : op->axes) {
      mix(static_cast<uint64_t>(iv->kind));
      hash(iv->dom.min);
      hash(iv->dom.extent);
      bind_var(iv.var());
    }
    hash(op->source);
    hash(op->condition);
    hash(op->init);
  }
  void visit_node(const Load* op) override {
    mix_ref(buffers_, op->buffer.get());
    hash(op->index);
  }
  void visit_node(const Ramp* op) override {
    mix(op->lanes);
    hash(op->base);
    hash(op->stride);
  }
  void visit_node(const Broadcast* op) override {
    mix(op->lanes);
    hash(op->value);
  }
  void visit_node(const Let* op) override {
    hash(op->value);
    bind_var(op->var);
    hash(op->body);
  }

  void visit_node(const For* op) override {
    mix(static_cast<uint64_t>(op->kind));
    if (op->kind == ForKind::ThreadBinding) mix(std::hash<std::string>()(op->thread_tag));
    hash(op->min);
    hash(op->extent);
    bind_var(op->var);
    hash(op->body);
  }
  void visit_node(const Store* op) override {
    mix_ref(buffers_, op->buffer.get());
    hash(op->index);
    hash(op->value);
  }
  void visit_node(const Provide* op) override {
    mix(reinterpret_cast<uintptr_t>(op->op.get()));
    hash_list(op->indices);
    hash(op->value);
  }
  void visit_node(const Realize* op) override {
    mix(reinterpret_cast<uintptr_t>(op->op.get()));
    mix(std::hash<std::string>()(op->scope.name()));
    mix(op->bounds.size());
    for (const Range& r : op->bounds) {
      hash(r.min);
      hash(r.extent);
    }
    hash(op->body);
  }
  void visit_node(const Allocate* op) override {
    hash(op->size);
    bind_buffer(op->buffer);
    hash(op->body);
  }
  void visit_node(const IfThenElse* op) override {
    hash(op->cond);
    hash(op->then_case);
    hash(op->else_case);
  }
  void visit_node(const Seq* op) override {
    mix(op->stmts.size());
    for (const Stmt& s : op->stmts) hash(s);
  }
  void visit_node(const LetStmt* op) override {
    hash(op->value);
    bind_var(op->var);
    hash(op->body);
  }
  void visit_node(const Evaluate* op) override { hash(op->value); }
  void visit_node(const AttrStmt* op) override {
    mix(std::hash<std::string>()(op->key));
    mix(op->subject.index());
    if (auto* var = std::get_if<Var>(&op->subject)) hash(*var);
    if (auto* buffer = std::get_if<Buffer>(&op->subject)) mix_ref(buffers_, buffer->get());
    if (auto* name = std::get_if<std::string>(&op->subject)) mix(std::hash<std::string>()(*name));
    hash(op->value);
    hash(op->body);
  }

 private:
  const bool map_bound_;
  uint64_t state_ = 0;
  std::unordered_map<const VarNode*, size_t> vars_;
  std::unordered_map<const BufferNode*, size_t> buffers_;
};

}  // namespace

bool structural_equal(const Expr& a, const Expr& b, bool map_bound) {
  // The comparator's own first checks, without building it: the simplifier compares many atoms.
  if (a.defined() && b.defined()) {
    if (a.same_as(b)) return true;
    if (a->kind != b->kind || a.type() != b.type()) return false;
  }
  return StructuralComparator(map_bound).equal(a, b);
}

bool structural_equal(const Stmt& a, const Stmt& b, bool map_bound) {
  return StructuralComparator(map_bound).equal(a, b);
}

size_t structural_hash(const Expr& e, bool map_bound) {
  StructuralHasher hasher(map_bound);
  hasher.hash(e);
  return hasher.result();
}

size_t structural_hash(const Stmt& s, bool map_bound) {
  StructuralHasher hasher(map_bound);
  hasher.hash(s);
  return hasher.result();
}

bool structural_equal(const LoweredFunc& a, const LoweredFunc& b) {
  if (a.args.size() != b.args.size()) return false;
  StructuralComparator comparator(true);
  for (size_t i = 0; i < a.args.size(); ++i) {
    if (a.args[i].shape != b.args[i].shape) return false;
    comparator.bind_buffer(a.args[i].buffer, b.args[i].buffer);
  }
  return comparator.equal(a.body, b.body);
}

size_t structural_hash(const LoweredFunc& f) {
  StructuralHasher hasher(true);
  hasher.mix(f.args.size());
  for (const FuncArg& arg : f.args) {
    hasher.mix(arg.shape.size());
    for (int64_t d : arg.shape) hasher.mix(static_cast<uint64_t>(d));
    hasher.bind_buffer(arg.buffer);
  }
  hasher.hash(f.body);
  return hasher.result();
}

}  // namespace tessel
