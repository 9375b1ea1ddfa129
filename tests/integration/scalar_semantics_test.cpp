// One scalar semantics everywhere: every binary operation over every pair of edge values (NaN,
// +-0, +-inf, denormals; INT_MIN, INT_MAX, -1, negative operands of floor division and modulo,
// wrapping sums and products), casts and the math intrinsics, computed by the tensor-expression
// interpreter and by the lowered function on the loop interpreter, llvm_cpu and c_source, scalar
// and vectorized. All must agree exactly (ir/scalar_semantics.h), but for exp, tanh and sigmoid,
// which llvm_cpu computes inline: within a few ulp, special values exactly.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "ir/te_interpreter.h"
#include "passes/lower/lower.h"
#include "tests/integration/executors.h"

using namespace tessel;
using namespace tessel::test;

namespace {

// Lowers outputs computed from `inputs` twice (plain, and with the inner axis vectorized by 8 when
// it divides), evaluates them with the TE interpreter and requires every executor to agree (float
// results within `ulps` where that is given).
void check_everywhere(const std::vector<Tensor>& inputs, const std::vector<NDArray>& values,
                      const std::vector<Tensor>& outputs, double ulps = 0) {
  std::vector<std::pair<Tensor, NDArray>> bindings;
  for (size_t i = 0; i < inputs.size(); ++i) bindings.emplace_back(inputs[i], values[i]);
  std::vector<NDArray> expected;
  for (const Tensor& out : outputs) expected.push_back(evaluate(out, bindings));
  std::vector<Tensor> args = inputs;
  args.insert(args.end(), outputs.begin(), outputs.end());
  for (bool vectorized : {false, true}) {
    Schedule s = create_schedule(outputs);
    for (const Tensor& out : outputs) {
      Stage st = s[out];
      const IterVar& inner = st.axis(st->op.ndim() - 1);
      if (vectorized && *as_const_int(inner->dom.extent) % 8 == 0) st.vectorize(st.split(inner, 8).second);
    }
    LoweredFunc f = lower(s, args, vectorized ? "vectorized" : "scalar");
    require_same_everywhere(f, values, expected, ulps);
  }
}

template <typename T>
NDArray array_of(const std::vector<T>& values) {
  return NDArray::from_vector<T>({static_cast<int64_t>(values.size())}, values);
}

// Every binary operator on all pairs (a[i], b[j]); division and modulo by d[j], which holds no 0.
// Comparisons are cast to int32 so every output is a number.
void check_binary_ops(DataType t, const NDArray& a_values, const NDArray& b_values, const NDArray& d_values) {
  int64_t n = a_values.numel(), m = b_values.numel(), md = d_values.numel();
  Tensor a = placeholder({n}, t, "a"), b = placeholder({m}, t, "b"), d = placeholder({md}, t, "d");
  std::vector<Tensor> outputs;
  auto pairwise = [&](const std::string& name, NodeKind kind) {
    Tensor rhs = kind == NodeKind::Div || kind == NodeKind::Mod ? d : b;
    outputs.push_back(compute({n, rhs.shape()[0]}, [&](Var i, Var j) {
      Expr r = make_binary(kind, a(i), rhs(j));
      return r.type().is_bool() ? cast(DataType::int32(), r) : r;
    }, name));
  };
  pairwise("add", NodeKind::Add);
  pairwise("sub", NodeKind::Sub);
  pairwise("mul", NodeKind::Mul);
  pairwise("div", NodeKind::Div);
  pairwise("mod", NodeKind::Mod);
  pairwise("min", NodeKind::Min);
  pairwise("max", NodeKind::Max);
  pairwise("lt", NodeKind::LT);
  pairwise("le", NodeKind::LE);
  pairwise("eq", NodeKind::EQ);
  pairwise("ne", NodeKind::NE);
  check_everywhere({a, b, d}, {a_values, b_values, d_values}, outputs);
}

constexpr float kInf = std::numeric_limits<float>::infinity();

}  // namespace

TEST_CASE("scalar semantics agree everywhere: float32 with NaN, signed zeros and infinities", "[scalar][differential]") {
  std::vector<float> values = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -2.5f, 3.0f, 7.0f, 1e30f, -1e30f,
                               kInf, -kInf, std::nanf(""), 1e-45f, -3e-39f, 16777217.0f};
  check_binary_ops(DataType::float32(), array_of(values), array_of(values), array_of(values));
}

TEST_CASE("scalar semantics agree everywhere: float64 min and max with NaN", "[scalar][differential]") {
  std::vector<double> values = {0.0, -0.0, 1.0, -1.0, std::nan(""), -INFINITY, INFINITY, 2.5};
  check_binary_ops(DataType{TypeCode::Float, 64, 1}, array_of(values), array_of(values), array_of(values));
}

TEST_CASE("scalar semantics agree everywhere: int32 wrapping and floor division", "[scalar][differential]") {
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min(), kMax = std::numeric_limits<int32_t>::max();
  std::vector<int32_t> values = {0, 1, -1, 2, -2, 3, -3, 7, -7, 65536, -65536, kMax, kMin, kMax - 1, kMin + 1, 46341};
  std::vector<int32_t> divisors = {1, -1, 2, -2, 3, -3, 7, -7, 8, -8, 65536, kMax, kMin, kMin + 1, 5, -5};
  check_binary_ops(DataType::int32(), array_of(values), array_of(values), array_of(divisors));
}

TEST_CASE("scalar semantics agree everywhere: int8 wraps at 8 bits, uint32 divides unsigned", "[scalar][differential]") {
  std::vector<int8_t> small = {0, 1, -1, 127, -128, 5, -5, 100, -100, 64, -64, 3, -3, 126, -127, 2};
  std::vector<int8_t> small_divisors = {1, -1, 2, -2, 3, -3, 127, -128, 5, -5, 100, -100, 64, -64, 7, -7};
  check_binary_ops(DataType::int8(), array_of(small), array_of(small), array_of(small_divisors));
  std::vector<uint32_t> u = {0, 1, 2, 7, 0x80000000u, 0xFFFFFFFFu, 12345, 0x7FFFFFFFu};
  std::vector<uint32_t> u_divisors = {1, 2, 3, 7, 0x80000000u, 0xFFFFFFFFu, 16, 0x7FFFFFFFu};
  check_binary_ops(DataType{TypeCode::UInt, 32, 1}, array_of(u), array_of(u), array_of(u_divisors));
}

TEST_CASE("scalar semantics agree everywhere: casts and math intrinsics", "[scalar][differential]") {
  std::vector<float> floats = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 2.5f, -2.5f, 100.75f, -100.75f,
                               1e9f, -1e9f, 3.0f, 1e-45f, 0.1f, 64.0f};
  std::vector<int32_t> ints = {0, 1, -1, 127, 128, -129, 255, 256, 65535, -65536, 16777217, -16777217,
                               std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min(), 300, -300};
  Tensor f = placeholder({16}, DataType::float32(), "f"), i = placeholder({16}, DataType::int32(), "i");
  DataType u8{TypeCode::UInt, 8, 1};
  std::vector<Tensor> outputs = {
      compute({16}, [&](Var x) { return cast(DataType::int32(), f(x)); }, "to_int32"),
      compute({16}, [&](Var x) { return cast(DataType{TypeCode::Float, 64, 1}, f(x)); }, "to_float64"),
      compute({16}, [&](Var x) { return cast(DataType::int32(), cast(DataType::boolean(), f(x))); }, "to_bool"),
      compute({16}, [&](Var x) { return cast(DataType::int8(), i(x)); }, "wrap_int8"),
      compute({16}, [&](Var x) { return cast(u8, i(x)); }, "wrap_uint8"),
      compute({16}, [&](Var x) { return cast(DataType::float32(), i(x)); }, "int_to_float"),
      compute({16}, [&](Var x) { return cast(DataType::int64(), i(x)) * cast(DataType::int64(), i(x)); }, "square64"),
  };
  for (const char* name : {"log", "sqrt", "fabs", "floor", "ceil", "round", "trunc"})
    outputs.push_back(compute({16}, [&](Var x) { return call(name, {f(x)}); }, name));
  check_everywhere({f, i}, {array_of(floats), array_of(ints)}, outputs);
  // exp, tanh and sigmoid: llvm_cpu computes float32 ones inline, not by libm (float_math.h), within
  // 2 ulp of the exact value; signed zeros, infinities and NaN as libm's.
  std::vector<Tensor> transcendental;
  for (const char* name : {"exp", "tanh", "sigmoid"})
    transcendental.push_back(compute({16}, [&](Var x) { return call(name, {f(x)}); }, name));
  check_everywhere({f}, {array_of(floats)}, transcendental, 3);
}
