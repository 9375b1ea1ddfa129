// Scalar code generation: floor division and modulo on negative values (every code path: general,
// positive or negative constant divisor, non-negative operands), comparisons and select, casts, intrinsics.
#include <catch2/catch.hpp>

#include <cmath>

#include "tests/llvm_cpu/llvm_test_util.h"

using namespace tessel;
using namespace tessel::test;

namespace {

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a % b < 0) != (b < 0))); }
int64_t floor_mod(int64_t a, int64_t b) { return a - floor_div(a, b) * b; }

}  // namespace

TEST_CASE("floor division and modulo match C++ floor semantics on negative values", "[llvm_cpu][scalar]") {
  const int64_t n = 201;
  FuncArg a = vector_arg("a", DataType::int32(), n), d = vector_arg("d", DataType::int32(), n);
  std::vector<FuncArg> outs;
  for (const char* name : {"q_var", "r_var", "q_pos", "r_pos", "q_neg", "r_neg", "q_idx", "r_idx", "q_nonneg", "r_nonneg"})
    outs.push_back(vector_arg(name, DataType::int32(), n));
  Var i("i");
  Expr x = load(a.buffer, i), y = load(d.buffer, i);
  std::vector<Stmt> stores = {
      make_store(outs[0].buffer, i, x / y),     make_store(outs[1].buffer, i, x % y),
      make_store(outs[2].buffer, i, x / 7),     make_store(outs[3].buffer, i, x % 7),
      make_store(outs[4].buffer, i, x / -3),    make_store(outs[5].buffer, i, x % -3),
      make_store(outs[6].buffer, i, Expr(i) / 8), make_store(outs[7].buffer, i, Expr(i) % 8),
      make_store(outs[8].buffer, i, Expr(i) / (Expr(i) % 5 + 1)), make_store(outs[9].buffer, i, Expr(i) % (Expr(i) % 5 + 1))};
  std::vector<FuncArg> args = {a, d};
  args.insert(args.end(), outs.begin(), outs.end());
  auto f = jit(LoweredFunc{"floor_ops", args, loop(i, n, make_seq(stores))});

  std::vector<int32_t> av, dv;
  for (int64_t k = 0; k < n; ++k) {
    av.push_back(static_cast<int32_t>(k - 100));
    int32_t divisor = static_cast<int32_t>(k % 9 - 4);
    dv.push_back(divisor == 0 ? 5 : divisor);
  }
  std::vector<NDArray> arrays = {NDArray::from_vector<int32_t>({n}, av), NDArray::from_vector<int32_t>({n}, dv)};
  for (size_t k = 0; k < outs.size(); ++k) arrays.push_back(NDArray::zeros({n}, DataType::int32()));
  run(*f, arrays);
  for (int64_t k = 0; k < n; ++k) {
    INFO("a = " << av[k] << ", d = " << dv[k] << ", i = " << k);
    CHECK(arrays[2].data_as<int32_t>()[k] == floor_div(av[k], dv[k]));
    CHECK(arrays[3].data_as<int32_t>()[k] == floor_mod(av[k], dv[k]));
    CHECK(arrays[4].data_as<int32_t>()[k] == floor_div(av[k], 7));
    CHECK(arrays[5].data_as<int32_t>()[k] == floor_mod(av[k], 7));
    CHECK(arrays[6].data_as<int32_t>()[k] == floor_div(av[k], -3));
    CHECK(arrays[7].data_as<int32_t>()[k] == floor_mod(av[k], -3));
    CHECK(arrays[8].data_as<int32_t>()[k] == k / 8);
    CHECK(arrays[9].data_as<int32_t>()[k] == k % 8);
    CHECK(arrays[10].data_as<int32_t>()[k] == k / (k % 5 + 1));
    CHECK(arrays[11].data_as<int32_t>()[k] == k % (k % 5 + 1));
  }
}

TEST_CASE("comparisons, logic and select pick the right values", "[llvm_cpu][scalar]") {
  const int64_t n = 64;
  FuncArg a = vector_arg("a", DataType::float32(), n), out = vector_arg("out", DataType::float32(), n);
  Var i("i");
  Expr x = load(a.buffer, i);
  // leaky relu, but zeroed where i is in [10, 20) or x == 0.5
  Expr in_band = (Expr(i) >= 10) && (Expr(i) < 20);
  Expr value = select(in_band || eq(x, make_float(0.5)), make_float(0.0), select(x > make_float(0.0), x, x * 0.1));
  auto f = jit(LoweredFunc{"leaky", {a, out}, loop(i, n, make_store(out.buffer, i, value))});
  std::vector<NDArray> arrays = {NDArray::random_uniform({n}, DataType::float32(), 7),
                                 NDArray::zeros({n}, DataType::float32())};
  arrays[0].data_as<float>()[30] = 0.5f;
  run(*f, arrays);
  for (int64_t k = 0; k < n; ++k) {
    float v = arrays[0].data_as<float>()[k];
    float expected = (k >= 10 && k < 20) || v == 0.5f ? 0.0f : v > 0 ? v : v * 0.1f;
    CHECK(arrays[1].data_as<float>()[k] == Approx(expected));
  }
}

TEST_CASE("casts convert between int, float and bool with C semantics", "[llvm_cpu][scalar]") {
  const int64_t n = 16;
  FuncArg a = vector_arg("a", DataType::float32(), n);
  FuncArg as_int = vector_arg("as_int", DataType::int32(), n), as_bool = vector_arg("as_bool", DataType::boolean(), n);
  FuncArg back = vector_arg("back", DataType::float32(), n);
  Var i("i");
  Expr x = load(a.buffer, i);
  Stmt body = make_seq({make_store(as_int.buffer, i, cast(DataType::int32(), x * 10.0)),
                        make_store(as_bool.buffer, i, cast(DataType::boolean(), x)),
                        make_store(back.buffer, i, cast(DataType::float32(), cast(DataType::int64(), x * 10.0)))});
  auto f = jit(LoweredFunc{"casts", {a, as_int, as_bool, back}, loop(i, n, body)});
  std::vector<float> values;
  for (int k = 0; k < n; ++k) values.push_back((k - 8) * 0.37f);
  std::vector<NDArray> arrays = {NDArray::from_vector<float>({n}, values), NDArray::zeros({n}, DataType::int32()),
                                 NDArray::zeros({n}, DataType::boolean()), NDArray::zeros({n}, DataType::float32())};
  run(*f, arrays);
  for (int k = 0; k < n; ++k) {
    CHECK(arrays[1].data_as<int32_t>()[k] == static_cast<int32_t>(values[k] * 10.0f));
    CHECK(arrays[2].data_as<bool>()[k] == (values[k] != 0.0f));
    CHECK(arrays[3].data_as<float>()[k] == static_cast<float>(static_cast<int64_t>(values[k] * 10.0f)));
  }
}

TEST_CASE("math intrinsics match libm, scalar and 16-lane vectors", "[llvm_cpu][scalar][vector]") {
  const int64_t n = 64;
  std::vector<std::pair<std::string, double (*)(double)>> fns = {
      {"exp", [](double v) { return std::exp(v); }},   {"log", [](double v) { return std::log(v); }},
      {"sqrt", [](double v) { return std::sqrt(v); }}, {"fabs", [](double v) { return std::fabs(v - 2.0); }},
      {"tanh", [](double v) { return std::tanh(v - 2.0); }},
      {"sigmoid", [](double v) { return 1.0 / (1.0 + std::exp(-(v - 2.0))); }},
      {"floor", [](double v) { return std::floor(v - 2.0); }}};
  for (int lanes : {1, 16}) {
    for (const auto& [name, reference] : fns) {
      FuncArg a = vector_arg("a", DataType::float32(), n), out = vector_arg("out", DataType::float32(), n);
      Var i("i");
      Expr index = lanes == 1 ? Expr(i) : ramp(Expr(i) * lanes, 1, lanes);
      Expr x = load(a.buffer, index);
      bool shifted = name != "exp" && name != "log" && name != "sqrt";
      Expr arg = shifted ? x - (lanes == 1 ? make_float(2.0) : broadcast(make_float(2.0), lanes)) : x;
      auto f = jit(LoweredFunc{"intrinsic_" + name, {a, out},
                               loop(i, n / lanes, make_store(out.buffer, index, call(name, {arg})))});
      std::vector<NDArray> arrays = {NDArray::random_uniform({n}, DataType::float32(), 3, 0.01, 4.0),
                                     NDArray::zeros({n}, DataType::float32())};
      run(*f, arrays);
      for (int64_t k = 0; k < n; ++k) {
        INFO(name << " lanes " << lanes << " at " << arrays[0].data_as<float>()[k]);
        CHECK(arrays[1].data_as<float>()[k] == Approx(reference(arrays[0].data_as<float>()[k])).epsilon(1e-5).margin(1e-6));
      }
    }
  }
}
