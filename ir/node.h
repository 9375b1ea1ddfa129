// Reference-counted, immutable IR nodes. Every node kind has a tag so visitors dispatch with one
// switch; handles (Expr, Stmt, Var, ...) share nodes, and rewrites build new nodes instead of
// changing old ones, so a subtree can appear in many places safely.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>

namespace tessel {

enum class NodeKind : uint8_t {
  // expressions
  IntImm, FloatImm, Var, Add, Sub, Mul, Div, Mod, Min, Max, EQ, NE, LT, LE, GT, GE, And, Or, Not,
  Select, Cast, Call, TensorRead, Reduce, Load, Ramp, Broadcast, Let,
  // statements
  For, Store, Provide, Realize, Allocate, IfThenElse, Seq, LetStmt,
  // added later; kept last so the values (and structural hashes) of the kinds above do not move
  Evaluate, AttrStmt,
};

struct Node {
  explicit Node(NodeKind k) : kind(k) {}
  virtual ~Node() = default;
  const NodeKind kind;
};

// A nullable shared handle to an immutable node. Equality is identity; structural comparison
// lives in ir/equality.h.
template <typename NodeT>
class Handle {
 public:
  Handle() = default;
  explicit Handle(std::shared_ptr<const NodeT> n) : node_(std::move(n)) {}

  bool defined() const { return node_ != nullptr; }
  const NodeT* get() const { return node_.get(); }
  const NodeT* operator->() const { return node_.get(); }
  const std::shared_ptr<const NodeT>& ptr() const { return node_; }
  bool same_as(const Handle& other) const { return node_ == other.node_; }

  // The node as a concrete kind, or nullptr: `if (auto* add = e.as<Add>()) ...`.
  template <typename T>
  const T* as() const {
    return node_ && node_->kind == T::kKind ? static_cast<const T*>(node_.get()) : nullptr;
  }

 protected:
  std::shared_ptr<const NodeT> node_;
};

struct HandleHash {
  template <typename H>
  size_t operator()(const H& h) const { return std::hash<const void*>()(h.get()); }
};
struct HandleEqual {
  template <typename H>
  bool operator()(const H& a, const H& b) const { return a.get() == b.get(); }
};

}  // namespace tessel
