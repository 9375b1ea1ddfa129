// Decomposition of integer expressions into linear forms and their reconstruction (see
// linear_form.h). The identity (x / c) * c + x % c == x, which holds for floor and unsigned
// division alike, is applied while collecting, so fused-loop index recovery folds back to x.
#include "passes/arith/linear_form.h"

#include <numeric>

#include "ir/equality.h"
#include "passes/arith/int_arith.h"
#include "support/error.h"

namespace tessel::arith {

namespace {

// Coefficients live in the signed view of the type's width, so subtraction prints as such.
int64_t wrap_coef(uint64_t v, DataType type) {
  return wrap_to_type(static_cast<int64_t>(v), DataType{TypeCode::Int, type.bits, 1});
}
int64_t mul_coef(int64_t a, int64_t b, DataType t) {
  return wrap_coef(static_cast<uint64_t>(a) * static_cast<uint64_t>(b), t);
}
int64_t add_coef(int64_t a, int64_t b, DataType t) {
  return wrap_coef(static_cast<uint64_t>(a) + static_cast<uint64_t>(b), t);
}

void collect(const Expr& e, int64_t scale, LinearForm& out) {
  if (auto* imm = e.as<IntImm>()) {
    out.constant = add_coef(out.constant, mul_coef(scale, imm->value, out.type), out.type);
  } else if (auto* add = e.as<Add>()) {
    collect(add->a, scale, out);
    collect(add->b, scale, out);
  } else if (auto* sub = e.as<Sub>()) {
    collect(sub->a, scale, out);
    collect(sub->b, mul_coef(scale, -1, out.type), out);
  } else if (auto* mul = e.as<Mul>()) {
    LinearForm a = to_linear(mul->a), b = to_linear(mul->b);
    if (b.is_constant())
      out.add(a, mul_coef(scale, b.constant, out.type));
    else if (a.is_constant())
      out.add(b, mul_coef(scale, a.constant, out.type));
    else
      out.add_term(e, scale);
  } else {
    out.add_term(e, scale);
  }
}

// The x and c of an atom x / c or x % c with a nonzero constant c.
template <typename Node>
const Node* by_constant(const Expr& atom) {
  auto* node = atom.as<Node>();
  return node && as_const_int(node->b) && *as_const_int(node->b) != 0 ? node : nullptr;
}

// Finds k*c*(x/c) + k*(x%c) and replaces the pair by k*x; returns whether it found one.
bool merge_one_div_mod_pair(LinearForm& form) {
  for (size_t m = 0; m < form.terms.size(); ++m) {
    auto* mod = by_constant<Mod>(form.terms[m].atom);
    if (!mod) continue;
    int64_t k = form.terms[m].coef, c = *as_const_int(mod->b);
    for (size_t d = 0; d < form.terms.size(); ++d) {
      auto* div = by_constant<Div>(form.terms[d].atom);
      if (!div || *as_const_int(div->b) != c || form.terms[d].coef != mul_coef(k, c, form.type)) continue;
      if (!structural_equal(div->a, mod->a)) continue;
      Expr x = mod->a;
      form.terms.erase(form.terms.begin() + std::max(m, d));
      form.terms.erase(form.terms.begin() + std::min(m, d));
      form.add(to_linear(x), k);
      return true;
    }
  }
  return false;
}

// A negative coefficient is emitted as a subtraction unless its magnitude does not fit the type.
bool is_subtracted(int64_t coef, DataType t) { return coef < 0 && wrap_coef(-static_cast<uint64_t>(coef), t) != coef; }

Expr scaled(const Expr& atom, int64_t magnitude, DataType type) {
  return magnitude == 1 ? atom : atom * make_int(magnitude, type);
}

}  // namespace

void LinearForm::add_term(const Expr& atom, int64_t scale) {
  if (scale == 0) return;
  for (size_t i = 0; i < terms.size(); ++i) {
    if (!structural_equal(terms[i].atom, atom)) continue;
    terms[i].coef = add_coef(terms[i].coef, scale, type);
    if (terms[i].coef == 0) terms.erase(terms.begin() + i);
    return;
  }
  terms.push_back({atom, scale});
}

void LinearForm::add(const LinearForm& other, int64_t scale) {
  for (const LinearTerm& t : other.terms) add_term(t.atom, mul_coef(t.coef, scale, type));
  constant = add_coef(constant, mul_coef(other.constant, scale, type), type);
}

LinearForm to_linear(const Expr& e) {
  TESSEL_CHECK(e.type().is_index() && e.type().lanes == 1, "linear form of a ", e.type().str(), " expression");
  LinearForm form;
  form.type = e.type();
  collect(e, 1, form);
  while (merge_one_div_mod_pair(form)) {
  }
  return form;
}

Expr from_linear(const LinearForm& form) {
  DataType t = form.type;
  if (form.terms.empty()) return make_int(wrap_to_type(form.constant, t), t);
  Expr result;
  for (const LinearTerm& term : form.terms) {
    if (is_subtracted(term.coef, t)) continue;
    Expr part = scaled(term.atom, term.coef, t);
    result = result.defined() ? result + part : part;
  }
  // "5 - x" reads better than "0 - x + 5".
  bool constant_first = !result.defined() && form.constant > 0;
  if (constant_first) result = make_int(form.constant, t);
  if (!result.defined()) result = make_zero(t);
  for (const LinearTerm& term : form.terms)
    if (is_subtracted(term.coef, t)) result = result - scaled(term.atom, -term.coef, t);
  if (constant_first || form.constant == 0) return result;
  if (is_subtracted(form.constant, t)) return result - make_int(-form.constant, t);
  return result + make_int(form.constant, t);
}

int64_t coefficient_gcd(const LinearForm& form) {
  int64_t g = 0;
  for (const LinearTerm& term : form.terms) g = std::gcd(g, term.coef);
  return g;
}

}  // namespace tessel::arith
