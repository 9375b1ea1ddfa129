// The table of intrinsics (see intrinsic.h): the built-in entries with their type rules and the
// scalar math both interpreters and constant folding evaluate.
#include "ir/intrinsic.h"

#include <algorithm>
#include <cmath>

#include "ir/named_table.h"
#include "support/error.h"

namespace tessel {

namespace {

// In the precision of t: float32 math calls the float functions of libm, as compiled code does.
template <float (*F32)(float), double (*F64)(double)>
double unary_math(double x, DataType t) {
  return t.bits == 32 ? F32(static_cast<float>(x)) : F64(x);
}

float sigmoid_f32(float x) { return 1.0f / (1.0f + ::expf(-x)); }
double sigmoid_f64(double x) { return 1.0 / (1.0 + ::exp(-x)); }

DataType one_float(const Intrinsic& self, const std::vector<Expr>& args) {
  check_arg_count(self, args, 1);
  if (!args[0].type().is_float()) intrinsic_arg_error(self, "the argument is " + args[0].type().str());
  return args[0].type();
}

Intrinsic float_math(std::string name, double (*math)(double, DataType), std::string description) {
  return {std::move(name), CallEffect::Pure, "(float x) -> float", std::move(description), one_float, {}, math};
}

DataType prefetch_rule(const Intrinsic& self, const std::vector<Expr>& args) {
  check_arg_count(self, args, 1);
  check_address_arg(self, args, 0);
  return DataType::int32();
}

DataType fill_rule(const Intrinsic& self, const std::vector<Expr>& args) {
  check_arg_count(self, args, 3);
  DataType element = check_address_arg(self, args, 0);
  if (args[1].type() != element)
    intrinsic_arg_error(self, "the value is " + args[1].type().str() + " but the buffer holds " + element.str());
  check_int_arg(self, args, 2);
  return DataType::int32();
}

// Never destroyed: Call nodes in static objects may point to its entries until the very end.
NamedTable<Intrinsic>& intrinsics() {
  static NamedTable<Intrinsic>* table = [] {
    auto* t = new NamedTable<Intrinsic>("intrinsic");
    t->add(float_math("exp", unary_math<::expf, ::exp>, "e to the power x"));
    t->add(float_math("log", unary_math<::logf, ::log>, "natural logarithm"));
    t->add(float_math("sqrt", unary_math<::sqrtf, ::sqrt>, "square root"));
    t->add(float_math("fabs", unary_math<::fabsf, ::fabs>, "absolute value"));
    t->add(float_math("tanh", unary_math<::tanhf, ::tanh>, "hyperbolic tangent"));
    t->add(float_math("sigmoid", unary_math<sigmoid_f32, sigmoid_f64>, "1 / (1 + exp(-x))"));
    t->add(float_math("floor", unary_math<::floorf, ::floor>, "round down to an integer"));
    t->add(float_math("ceil", unary_math<::ceilf, ::ceil>, "round up to an integer"));
    t->add(float_math("round", unary_math<::roundf, ::round>, "round to the nearest integer, halves away from 0"));
    t->add(float_math("trunc", unary_math<::truncf, ::trunc>, "round toward zero to an integer"));
    t->add({"prefetch", CallEffect::Opaque, "(address) -> int32",
            "hint that the element at address will be read soon; no effect on results", prefetch_rule, {0}, nullptr});
    t->add({"prefetch_l2", CallEffect::Opaque, "(address) -> int32",
            "hint that the element at address will be read later: fetched into the outer caches only (x86's "
            "prefetcht1), leaving the inner one to the data in use; no effect on results",
            prefetch_rule, {0}, nullptr});
    t->add({"fill", CallEffect::WritesMemory, "(address, value, count) -> int32",
            "sets count elements from address on to value", fill_rule, {0}, nullptr});
    return t;
  }();
  return *table;
}

}  // namespace

const char* call_effect_name(CallEffect effect) {
  switch (effect) {
    case CallEffect::Pure: return "pure";
    case CallEffect::ReadsMemory: return "reads memory";
    case CallEffect::WritesMemory: return "writes memory";
    case CallEffect::Opaque: return "opaque side effect";
  }
  return "?";
}

bool Intrinsic::is_address_arg(size_t i) const {
  return std::find(address_args.begin(), address_args.end(), i) != address_args.end();
}

const Intrinsic& register_intrinsic(Intrinsic intrinsic) {
  if (!intrinsic.type_rule) user_error("intrinsic '", intrinsic.name, "' needs a type rule");
  return intrinsics().add(std::move(intrinsic));
}

const Intrinsic& intrinsic(const std::string& name) {
  return intrinsics().get(name, "a layer adds its own with register_intrinsic");
}

std::vector<std::string> intrinsic_names() { return intrinsics().names(); }

Expr make_call(const Intrinsic& intrinsic, std::vector<Expr> args) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].defined()) intrinsic_arg_error(intrinsic, "argument " + std::to_string(i) + " is undefined");
    check_not_statement_call(args[i], "an argument of another call");
  }
  DataType type = intrinsic.type_rule(intrinsic, args);
  return Expr(std::make_shared<Call>(type, intrinsic, std::move(args)));
}

bool is_prefetch(const std::string& intrinsic_name) {
  return intrinsic_name == "prefetch" || intrinsic_name == "prefetch_l2";
}

int prefetch_locality(const std::string& intrinsic_name) {
  if (intrinsic_name == "prefetch") return 3;
  TESSEL_CHECK(intrinsic_name == "prefetch_l2", "'", intrinsic_name, "' is not a prefetch");
  return 2;
}

const Intrinsic* statement_call(const Expr& e) {
  auto* c = e.as<Call>();
  return c && c->intrinsic->is_statement() ? c->intrinsic : nullptr;
}

void check_not_statement_call(const Expr& e, const char* where) {
  if (const Intrinsic* i = statement_call(e))
    user_error("intrinsic '", i->name, "' (", call_effect_name(i->effect), ") is used as ", where,
               "; calls with side effects are statements: wrap the call in make_evaluate");
}

void intrinsic_arg_error(const Intrinsic& self, const std::string& what) {
  user_error("intrinsic '", self.name, "' ", self.signature, ": ", what);
}

void check_arg_count(const Intrinsic& self, const std::vector<Expr>& args, size_t count) {
  if (args.size() != count)
    intrinsic_arg_error(self, "takes " + std::to_string(count) + " argument(s), got " + std::to_string(args.size()));
}

DataType check_address_arg(const Intrinsic& self, const std::vector<Expr>& args, size_t i) {
  const Expr& element = args[i];
  if (!(element.as<Load>() || element.as<TensorRead>()) || element.type().is_vector())
    intrinsic_arg_error(self, "argument " + std::to_string(i) +
                                  " is an address: pass a scalar load of the element, e.g. load(buffer, index)");
  return element.type();
}

void check_int_arg(const Intrinsic& self, const std::vector<Expr>& args, size_t i) {
  DataType t = args[i].type();
  if (!t.is_index() || t.is_vector())
    intrinsic_arg_error(self, "argument " + std::to_string(i) + " must be a scalar integer, got " + t.str());
}

}  // namespace tessel
