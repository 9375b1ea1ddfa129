// Vectorization (see vectorize.h). LaneRewriter turns the body of one loop into vector code and
// throws CannotVectorize at the first construct it cannot express; the loop then stays serial.
#include "passes/lower/vectorize.h"

#include <algorithm>

#include "ir/mutator.h"
#include "ir/visitor.h"
#include "passes/arith/simplify.h"
#include "passes/arith/vector_algebra.h"

namespace tessel {

namespace {

constexpr int kMaxLanes = 64;

struct CannotVectorize {};

Expr widen(const Expr& e, int lanes) { return e.type().lanes == lanes ? e : broadcast(e, lanes); }

class LaneRewriter : public IRMutator {
 public:
  LaneRewriter(const Var& var, Expr ramp, int lanes) : lanes_(lanes) { vars_[var.get()] = std::move(ramp); }

 protected:
  Expr mutate_node(const VarNode* op, const Expr& self) override {
    auto it = vars_.find(op);
    return it == vars_.end() ? self : it->second;
  }

#define TESSEL_VECTORIZE_BINARY(T)                                                                    \
  Expr mutate_node(const T* op, const Expr& self) override {                                          \
    Expr a = mutate(op->a), b = mutate(op->b);                                                        \
    if (a.same_as(op->a) && b.same_as(op->b)) return self;                                            \
    Expr combined = arith::combine_vectors(T::kKind, a, b);                                           \
    return combined.defined() ? combined : make_binary(T::kKind, widen(a, lanes_), widen(b, lanes_)); \
  }
  TESSEL_BINARY_NODES(TESSEL_VECTORIZE_BINARY)
#undef TESSEL_VECTORIZE_BINARY

  Expr mutate_node(const Select* op, const Expr& self) override {
    Expr c = mutate(op->cond), t = mutate(op->true_value), f = mutate(op->false_value);
    if (c.same_as(op->cond) && t.same_as(op->true_value) && f.same_as(op->false_value)) return self;
    return select(widen(c, lanes_), widen(t, lanes_), widen(f, lanes_));
  }
  Expr mutate_node(const Call* op, const Expr& self) override {
    bool changed = false;
    std::vector<Expr> args = mutate_all(op->args, &changed);
    if (!changed) return self;
    for (Expr& a : args) a = widen(a, lanes_);
    return call(op->name, args);
  }
  // Vectors inside the loop (and lets) would need nested lanes; leave them lane-invariant or give up.
  Expr mutate_node(const Ramp* op, const Expr& self) override {
    return uses_lane(op->base) || uses_lane(op->stride) ? give_up() : self;
  }
  Expr mutate_node(const Broadcast* op, const Expr& self) override { return uses_lane(op->value) ? give_up() : self; }
  Expr mutate_node(const Let* op, const Expr& self) override {
    return uses_lane(op->value) || uses_lane(op->body) ? give_up() : self;
  }

  Stmt mutate_node(const Store* op, const Stmt& self) override {
    Expr index = mutate(op->index), value = mutate(op->value);
    if (index.same_as(op->index) && value.same_as(op->value)) throw CannotVectorize{};  // same address every lane
    index = simplify(index);  // folds the stride the ramp rules built
    auto* ramp = index.as<Ramp>();
    const int64_t* stride = ramp ? as_const_int(ramp->stride) : nullptr;
    if (!stride || *stride == 0) throw CannotVectorize{};  // lanes might collide
    return make_store(op->buffer, index, widen(value, lanes_));
  }
  Stmt mutate_node(const For* op, const Stmt& self) override {
    if (uses_lane(op->min) || uses_lane(op->extent)) throw CannotVectorize{};
    Stmt body = mutate(op->body);
    return body.same_as(op->body) ? self : make_for(op->var, op->min, op->extent, op->kind, body, op->thread_tag);
  }
  // A call with effects must run once per iteration, which one vector iteration would not do.
  Stmt mutate_node(const Evaluate*, const Stmt&) override { throw CannotVectorize{}; }
  Stmt mutate_node(const AttrStmt* op, const Stmt& self) override {
    if (uses_lane(op->value)) throw CannotVectorize{};
    return IRMutator::mutate_node(op, self);
  }
  Stmt mutate_node(const IfThenElse* op, const Stmt& self) override {
    if (uses_lane(op->cond)) throw CannotVectorize{};
    return IRMutator::mutate_node(op, self);
  }
  Stmt mutate_node(const LetStmt* op, const Stmt& self) override {
    Expr value = mutate(op->value);
    if (value.type().lanes == 1) {
      Stmt body = mutate(op->body);
      return value.same_as(op->value) && body.same_as(op->body) ? self : make_let(op->var, value, body);
    }
    Var lanes_var(op->var.name(), value.type());
    vars_[op->var.get()] = lanes_var;
    return make_let(lanes_var, value, mutate(op->body));
  }
  Stmt mutate_node(const Allocate*, const Stmt&) override { throw CannotVectorize{}; }

 private:
  bool uses_lane(const Expr& e) { return mutate(e).type().lanes > 1; }
  [[noreturn]] static Expr give_up() { throw CannotVectorize{}; }

  int lanes_;
  std::unordered_map<const ExprNode*, Expr> vars_;
};

// The widest element stored in `s`, in bits (32 if it stores nothing).
int widest_stored_bits(const Stmt& s) {
  struct Widest : IRVisitor {
    int bits = 0;
    void visit_node(const Store* op) override {
      bits = std::max<int>(bits, op->value.type().bits);
      IRVisitor::visit_node(op);
    }
  } widest;
  widest.visit(s);
  return widest.bits ? widest.bits : 32;
}

class LoopVectorizer : public IRMutator {
 public:
  explicit LoopVectorizer(int register_bits) : register_bits_(register_bits) {}

 protected:
  Stmt mutate_node(const For* op, const Stmt& self) override {
    Stmt inner = IRMutator::mutate_node(op, self);
    if (op->kind != ForKind::Vectorized) return inner;
    auto* loop = inner.as<For>();
    const int64_t* extent = as_const_int(loop->extent);
    Stmt serial = make_for(loop->var, loop->min, loop->extent, ForKind::Serial, loop->body);
    if (!extent || *extent < 2 || *extent > kMaxLanes) return serial;
    try {
      std::vector<Stmt> pieces;
      for (auto [offset, lanes] : vector_pieces(*extent, loop->body)) {
        Expr start = simplify(loop->min + make_int(offset, loop->min.type()));
        pieces.push_back(lanes == 1 ? substitute(loop->body, {{loop->var.operator->(), start}})
                                    : LaneRewriter(loop->var, ramp(start, make_int(1, start.type()), lanes), lanes)
                                          .mutate(loop->body));
      }
      return pieces.size() == 1 ? pieces[0] : make_seq(pieces);
    } catch (const CannotVectorize&) {
      return serial;
    }
  }

 private:
  // The extent as consecutive vectors: one where it is a power of two or fits one register of
  // the widest element `body` stores, else pieces of power-of-two lanes, widest first (24 floats on
  // AVX-512: 16 at 0, then 8 at 16). Why: LLVM widens a vector of other lanes to the next power of
  // two, which is one register with its lanes masked where it fits (12 floats on AVX-512 ran faster
  // than as 8 + 4 pieces, MobileNet-V2's blocks 3-10% per call), but beyond one register moves the
  // values between registers lane by lane (a <24 x float> accumulator tile ran 4-7x slower than
  // 16 + 8).
  std::vector<std::pair<int64_t, int>> vector_pieces(int64_t extent, const Stmt& body) const {
    bool power_of_two = (extent & (extent - 1)) == 0;
    if (register_bits_ == 0 || power_of_two || extent * widest_stored_bits(body) <= register_bits_)
      return {{0, static_cast<int>(extent)}};
    std::vector<std::pair<int64_t, int>> pieces;
    for (int64_t offset = 0, lanes = kMaxLanes; lanes >= 1; lanes /= 2)
      if (extent - offset >= lanes) {
        pieces.push_back({offset, static_cast<int>(lanes)});
        offset += lanes;
      }
    return pieces;
  }

  int register_bits_;
};

}  // namespace

Stmt vectorize_loops(const Stmt& s, int register_bits) { return LoopVectorizer(register_bits).mutate(s); }

}  // namespace tessel
