// Decomposition of integer expressions into linear forms and their reconstruction (see
// linear_form.h). The identity (x / c) * c + x % c == x, which holds for floor and unsigned
// division alike, is applied while collecting, so fused-loop index recovery folds back to x.
#include "passes/arith/linear_form.h"

#include <algorithm>
#include <array>
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

// Whether collect() takes e as one term of its own.
bool is_atom(const Expr& e) { return !e.as<IntImm>() && !e.as<Add>() && !e.as<Sub>() && !e.as<Mul>(); }

void collect(const Expr& e, int64_t scale, LinearForm& out);

// Collects scale * (a kind b) for an Add, Sub or Mul; `product` is that expression, needed (and
// built) only for a product of two non-constants, which is a term of its own.
template <typename Product>
void collect_binary(NodeKind kind, const Expr& a, const Expr& b, const Product& product, int64_t scale,
                    LinearForm& out) {
  if (kind != NodeKind::Mul) {
    collect(a, scale, out);
    collect(b, kind == NodeKind::Sub ? mul_coef(scale, -1, out.type) : scale, out);
    return;
  }
  // atom * c, the common case, adds one term without building the operands' forms.
  const int64_t* c = as_const_int(b);
  if (c && is_atom(a)) return out.add_term(a, mul_coef(scale, *c, out.type));
  LinearForm fa = to_linear(a), fb = to_linear(b);
  if (fb.is_constant())
    out.add(fa, mul_coef(scale, fb.constant, out.type));
  else if (fa.is_constant())
    out.add(fb, mul_coef(scale, fa.constant, out.type));
  else
    out.add_term(product(), scale);
}

void collect(const Expr& e, int64_t scale, LinearForm& out) {
  auto self = [&] { return e; };
  if (auto* imm = e.as<IntImm>())
    out.constant = add_coef(out.constant, mul_coef(scale, imm->value, out.type), out.type);
  else if (auto* add = e.as<Add>())
    collect_binary(NodeKind::Add, add->a, add->b, self, scale, out);
  else if (auto* sub = e.as<Sub>())
    collect_binary(NodeKind::Sub, sub->a, sub->b, self, scale, out);
  else if (auto* mul = e.as<Mul>())
    collect_binary(NodeKind::Mul, mul->a, mul->b, self, scale, out);
  else
    out.add_term(e, scale);
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

bool is_constant_node(const Expr& e, int64_t value, DataType type) { return is_const_int(e, value) && e.type() == type; }

// Whether e is exactly the node scaled(atom, magnitude, type) would build.
bool is_scaled(const Expr& e, const Expr& atom, int64_t magnitude, DataType type) {
  if (magnitude == 1) return structural_equal(e, atom);
  auto* mul = e.as<Mul>();
  return mul && mul->type == type && atom.type() == type && is_constant_node(mul->b, magnitude, type) &&
         structural_equal(mul->a, atom);
}

// Builds from_linear's left-deep chain one step at a time. While `reuse`'s left spine (the nodes
// reached through the first operand of its Adds and Subs, innermost first) holds exactly the node a
// step would build, the chain takes that node instead: the simplifier rebuilds a sum at every level
// of its tree, and its first operand, already simplified, is usually all but the last step.
class ChainBuilder {
 public:
  ChainBuilder(DataType type, const Expr& reuse) : type_(type) {
    for (const Expr* e = &reuse; e && e->defined(); e = sum_operands(*e).first) {
      if (spine_size_ == spine_.size()) {  // longer than any index sum: built anew
        spine_size_ = 0;
        break;
      }
      spine_[spine_size_++] = e;
    }
    std::reverse(spine_.begin(), spine_.begin() + spine_size_);
  }

  // result = result + part or result - part (kind Add or Sub), where part is atom * magnitude, or
  // the constant `magnitude` when atom is undefined; the first part starts the chain.
  void append(NodeKind kind, const Expr& atom, int64_t magnitude) {
    size_t step = steps_++;
    if (reusing_ && step < spine_size_) {
      const Expr& node = *spine_[step];
      bool same = step == 0 ? is_part(node, atom, magnitude)
                            : node->kind == kind && node.type() == type_ &&
                                  is_part(*sum_operands(node).second, atom, magnitude);
      if (same) {
        result_ = node;
        return;
      }
    }
    reusing_ = false;
    result_ = step == 0 ? part(atom, magnitude) : make_binary(kind, result_, part(atom, magnitude));
  }

  bool started() const { return result_.defined(); }
  const Expr& result() const { return result_; }

 private:
  // The operands of an Add or Sub, the only inner nodes of the chain's spine; null otherwise.
  static std::pair<const Expr*, const Expr*> sum_operands(const Expr& e) {
    if (auto* add = e.as<Add>()) return {&add->a, &add->b};
    if (auto* sub = e.as<Sub>()) return {&sub->a, &sub->b};
    return {nullptr, nullptr};
  }
  bool is_part(const Expr& e, const Expr& atom, int64_t magnitude) const {
    return atom.defined() ? is_scaled(e, atom, magnitude, type_) : is_constant_node(e, magnitude, type_);
  }
  Expr part(const Expr& atom, int64_t magnitude) const {
    return atom.defined() ? scaled(atom, magnitude, type_) : make_int(magnitude, type_);
  }

  DataType type_;
  std::array<const Expr*, 32> spine_;
  size_t spine_size_ = 0, steps_ = 0;
  bool reusing_ = true;
  Expr result_;
};

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

namespace {

// The form of an index expression, from the terms and constant `collect_into` adds to it.
template <typename Collect>
LinearForm linear_form(DataType type, const Collect& collect_into) {
  TESSEL_CHECK(type.is_index() && type.lanes == 1, "linear form of a ", type.str(), " expression");
  LinearForm form;
  form.type = type;
  form.terms.reserve(8);  // one allocation for an index expression's form, not one per growth
  collect_into(form);
  while (merge_one_div_mod_pair(form)) {
  }
  return form;
}

}  // namespace

LinearForm to_linear(const Expr& e) {
  return linear_form(e.type(), [&](LinearForm& form) { collect(e, 1, form); });
}

LinearForm to_linear(NodeKind kind, const Expr& a, const Expr& b) {
  TESSEL_CHECK(kind == NodeKind::Add || kind == NodeKind::Sub || kind == NodeKind::Mul,
               "linear form of an operation other than +, - and *");
  return linear_form(a.type(), [&](LinearForm& form) {
    collect_binary(kind, a, b, [&] { return make_binary(kind, a, b); }, 1, form);
  });
}

Expr from_linear(const LinearForm& form, const Expr& reuse) {
  DataType t = form.type;
  if (form.terms.empty()) return make_int(wrap_to_type(form.constant, t), t);
  ChainBuilder chain(t, reuse);
  for (const LinearTerm& term : form.terms)
    if (!is_subtracted(term.coef, t)) chain.append(NodeKind::Add, term.atom, term.coef);
  // "5 - x" reads better than "0 - x + 5".
  bool constant_first = !chain.started() && form.constant > 0;
  if (!chain.started()) chain.append(NodeKind::Add, Expr(), constant_first ? form.constant : 0);
  for (const LinearTerm& term : form.terms)
    if (is_subtracted(term.coef, t)) chain.append(NodeKind::Sub, term.atom, -term.coef);
  if (constant_first || form.constant == 0) return chain.result();
  if (is_subtracted(form.constant, t)) chain.append(NodeKind::Sub, Expr(), -form.constant);
  else chain.append(NodeKind::Add, Expr(), form.constant);
  return chain.result();
}

int64_t coefficient_gcd(const LinearForm& form) {
  int64_t g = 0;
  for (const LinearTerm& term : form.terms) g = std::gcd(g, term.coef);
  return g;
}

}  // namespace tessel::arith
