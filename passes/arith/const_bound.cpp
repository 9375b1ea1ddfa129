// Constant interval analysis (see const_bound.h): interval arithmetic with saturation at the
// unbounded ends, one visitor hook per node kind.
#include "passes/arith/const_bound.h"

#include <algorithm>
#include <optional>

#include "ir/visitor.h"
#include "passes/arith/int_arith.h"

namespace tessel::arith {

namespace {

using B = ConstBound;

bool is_inf(int64_t v) { return v == B::kNegInf || v == B::kPosInf; }
int64_t negate(int64_t v) { return v == B::kNegInf ? B::kPosInf : v == B::kPosInf ? B::kNegInf : -v; }

// a + b where an infinite operand dominates; `toward` is the infinity an overflow saturates to
// (the conservative side for the bound being computed).
int64_t sat_add(int64_t a, int64_t b, int64_t toward) {
  if (is_inf(a)) return a;
  if (is_inf(b)) return b;
  auto r = checked_add(a, b);
  return r ? *r : toward;
}

int64_t sat_mul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  bool positive = (a > 0) == (b > 0);
  if (is_inf(a) || is_inf(b)) return positive ? B::kPosInf : B::kNegInf;
  auto r = checked_mul(a, b);
  return r ? *r : (positive ? B::kPosInf : B::kNegInf);
}

// floor(a / d) for a finite, nonzero d.
int64_t sat_div(int64_t a, int64_t d) {
  if (is_inf(a)) return (a > 0) == (d > 0) ? B::kPosInf : B::kNegInf;
  if (a == B::kNegInf + 1 && d == -1) return B::kPosInf;
  return floor_div(a, d);
}

B from_corners(std::initializer_list<int64_t> corners) { return {std::min(corners), std::max(corners)}; }

B add(B a, B b) { return {sat_add(a.min, b.min, B::kNegInf), sat_add(a.max, b.max, B::kPosInf)}; }
B sub(B a, B b) { return add(a, {negate(b.max), negate(b.min)}); }
B mul(B a, B b) {
  return from_corners({sat_mul(a.min, b.min), sat_mul(a.min, b.max), sat_mul(a.max, b.min), sat_mul(a.max, b.max)});
}

B div(B a, B d) {
  bool excludes_zero = (d.min > 0 || d.max < 0) && !is_inf(d.min) && !is_inf(d.max);
  if (!excludes_zero) return B::everything();
  return from_corners({sat_div(a.min, d.min), sat_div(a.min, d.max), sat_div(a.max, d.min), sat_div(a.max, d.max)});
}

B mod(B a, B d) {
  if (d.min > 0 && d.has_max()) {
    if (a.min >= 0 && a.has_max() && a.max < d.min) return a;
    if (d.is_point() && a.has_min() && a.has_max() && floor_div(a.min, d.min) == floor_div(a.max, d.min))
      return {floor_mod(a.min, d.min), floor_mod(a.max, d.min)};
    return {0, d.max - 1};
  }
  if (d.max < 0 && d.has_min()) return {d.min + 1, 0};
  return B::everything();
}

class Analyzer : public IRVisitor {
 public:
  explicit Analyzer(const VarBounds& vars) : vars_(vars) {}

  B bound(const Expr& e) {
    visit(e);
    B r = result_;
    if (e.type().is_index() && !r.within(B::of_type(e.type()).min, B::of_type(e.type()).max))
      return B::of_type(e.type());  // the operation may wrap; nothing narrower is certain
    return r;
  }

 protected:
  void visit_node(const IntImm* op) override { result_ = B::point(op->value); }
  void visit_node(const VarNode* op) override {
    auto local = lets_.find(op);
    if (local != lets_.end()) {
      result_ = local->second;
      return;
    }
    auto it = vars_.find(op);
    result_ = it != vars_.end() ? it->second : B::of_type(op->type);
  }
  void visit_node(const Add* op) override { result_ = unsigned_or(op->type, add(bound(op->a), bound(op->b))); }
  void visit_node(const Sub* op) override { result_ = unsigned_or(op->type, sub(bound(op->a), bound(op->b))); }
  void visit_node(const Mul* op) override { result_ = unsigned_or(op->type, mul(bound(op->a), bound(op->b))); }
  void visit_node(const Div* op) override { result_ = unsigned_or(op->type, div(bound(op->a), bound(op->b))); }
  void visit_node(const Mod* op) override { result_ = unsigned_or(op->type, mod(bound(op->a), bound(op->b))); }
  void visit_node(const Min* op) override {
    B a = bound(op->a), b = bound(op->b);
    result_ = {std::min(a.min, b.min), std::min(a.max, b.max)};
  }
  void visit_node(const Max* op) override {
    B a = bound(op->a), b = bound(op->b);
    result_ = {std::max(a.min, b.min), std::max(a.max, b.max)};
  }
  void visit_node(const Select* op) override {
    B t = bound(op->true_value), f = bound(op->false_value);
    result_ = {std::min(t.min, f.min), std::max(t.max, f.max)};
  }
  void visit_node(const Cast* op) override {
    DataType from = op->value.type();
    if (from.is_float() || from.code == TypeCode::Handle) {
      result_ = B::of_type(op->type);
      return;
    }
    result_ = bound(op->value);  // bound() widens it to the target type if it does not fit
  }
  void visit_node(const Broadcast* op) override { result_ = bound(op->value); }
  void visit_node(const Ramp* op) override {
    B last = mul(bound(op->stride), B::point(op->lanes - 1));
    B offsets{std::min<int64_t>(0, last.min), std::max<int64_t>(0, last.max)};
    result_ = add(bound(op->base), offsets);
  }
  void visit_node(const Let* op) override {
    const auto* var = static_cast<const VarNode*>(op->var.get());
    auto it = lets_.find(var);
    std::optional<B> shadowed = it != lets_.end() ? std::optional<B>(it->second) : std::nullopt;
    lets_[var] = bound(op->value);
    result_ = bound(op->body);
    if (shadowed)
      lets_[var] = *shadowed;
    else
      lets_.erase(var);
  }
  // Comparisons and logic give 0 or 1; anything else (loads, calls, floats) is unknown.
#define TESSEL_BOOL_RESULT(T) \
  void visit_node(const T*) override { result_ = {0, 1}; }
  TESSEL_BOOL_RESULT(EQ)
  TESSEL_BOOL_RESULT(NE)
  TESSEL_BOOL_RESULT(LT) TESSEL_BOOL_RESULT(LE) TESSEL_BOOL_RESULT(GT) TESSEL_BOOL_RESULT(GE) TESSEL_BOOL_RESULT(And)
      TESSEL_BOOL_RESULT(Or) TESSEL_BOOL_RESULT(Not)
#undef TESSEL_BOOL_RESULT
          void visit_node(const FloatImm*) override {
    result_ = B::everything();
  }
  void visit_node(const Call* op) override { result_ = B::of_type(op->type); }
  void visit_node(const TensorRead* op) override { result_ = B::of_type(op->type); }
  void visit_node(const Reduce* op) override { result_ = B::of_type(op->type); }
  void visit_node(const Load* op) override { result_ = B::of_type(op->type); }

 private:
  // Unsigned arithmetic wraps at zero, which interval arithmetic on int64 does not model.
  static B unsigned_or(DataType t, B computed) { return t.is_uint() && !t.is_bool() ? B::of_type(t) : computed; }

  const VarBounds& vars_;
  std::unordered_map<const VarNode*, B> lets_;
  B result_;
};

}  // namespace

ConstBound ConstBound::of_type(DataType t) {
  if (t.is_bool()) return {0, 1};
  if (!t.is_index() || t.bits >= 64) return t.is_uint() ? B{0, kPosInf} : everything();
  if (t.is_uint()) return {0, (int64_t{1} << t.bits) - 1};
  return {-(int64_t{1} << (t.bits - 1)), (int64_t{1} << (t.bits - 1)) - 1};
}

ConstBound const_bound(const Expr& e, const VarBounds& vars) { return Analyzer(vars).bound(e); }

ConstBound loop_var_bound(const Expr& min, const Expr& extent, const VarBounds& vars) {
  B lo = const_bound(min, vars), ext = const_bound(extent, vars);
  if (!lo.has_min() || !lo.has_max() || !ext.has_max()) return B::everything();
  return {lo.min, sat_add(lo.max, ext.max - 1, B::kPosInf)};
}

}  // namespace tessel::arith
