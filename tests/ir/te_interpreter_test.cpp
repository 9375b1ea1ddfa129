// The reference interpreter against hand-computed results: GEMM, a padded convolution, a
// conditional max-reduction, integer floor division and wrap-around, intrinsics, and the errors
// it must raise instead of producing a value.
#include <catch2/catch.hpp>

#include <cmath>

#include "ir/te_interpreter.h"
#include "tests/user_error_check.h"

using namespace tessel;

namespace {

}  // namespace

TEST_CASE("interpreter: 4x5x3 GEMM", "[interpreter]") {
  Tensor a = placeholder({4, 3}, DataType::float32(), "A");
  Tensor b = placeholder({3, 5}, DataType::float32(), "B");
  IterVar k = reduce_axis(3, "k");
  Tensor c = compute({4, 5}, [&](Var i, Var j) { return sum(a(i, k) * b(k, j), {k}); }, "C");
  // A[i][k] = i + k and B[k][j] = k - j, so C[i][j] = sum over k < 3 of (i + k)(k - j)
  //   = i*(3 - 3j) + 5 - 3j   (sum of k is 3, sum of k*k is 5).
  std::vector<float> av, bv;
  for (int i = 0; i < 4; ++i)
    for (int kk = 0; kk < 3; ++kk) av.push_back(float(i + kk));
  for (int kk = 0; kk < 3; ++kk)
    for (int j = 0; j < 5; ++j) bv.push_back(float(kk - j));
  NDArray out = evaluate(c, {{a, NDArray::from_vector({4, 3}, av)}, {b, NDArray::from_vector({3, 5}, bv)}});
  REQUIRE(out.shape() == std::vector<int64_t>{4, 5});
  const float* cv = out.data_as<float>();
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j) CHECK(cv[i * 5 + j] == float(i * (3 - 3 * j) + 5 - 3 * j));
  CHECK(cv[0] == 5.0f);        // (0)(0) + (1)(1) + (2)(2)
  CHECK(cv[3 * 5 + 4] == -34.0f);  // (3)(-4) + (4)(-3) + (5)(-2)
}

TEST_CASE("interpreter: 3x3 convolution over a select-padded input", "[interpreter]") {
  Tensor in = placeholder({4, 4}, DataType::float32(), "I");
  Tensor w = placeholder({3, 3}, DataType::float32(), "W");
  Tensor padded = compute({6, 6}, [&](Var y, Var x) {
    Expr inside = y >= 1 && y < 5 && x >= 1 && x < 5;
    return select(inside, in(min(max(y - 1, 0), 3), min(max(x - 1, 0), 3)), 0.0);
  }, "P");
  IterVar ry = reduce_axis(3, "ry"), rx = reduce_axis(3, "rx");
  Tensor conv = compute({4, 4}, [&](Var y, Var x) { return sum(padded(y + ry.var(), x + rx.var()) * w(ry, rx), {ry, rx}); }, "O");
  // Input all ones, weights 1..9: a pixel sums the weights whose tap lands inside the image.
  NDArray ones = NDArray::from_vector({4, 4}, std::vector<float>(16, 1.0f));
  NDArray weights = NDArray::from_vector({3, 3}, std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9});
  NDArray out = evaluate(conv, {{in, ones}, {w, weights}});
  const float* o = out.data_as<float>();
  CHECK(o[0] == 5 + 6 + 8 + 9);            // top-left: taps (1..2, 1..2)
  CHECK(o[1] == 4 + 5 + 6 + 7 + 8 + 9);    // top edge: bottom two weight rows
  CHECK(o[5] == 45);                       // interior: all taps
  CHECK(o[15] == 1 + 2 + 4 + 5);           // bottom-right
  CHECK(o[12] == 2 + 3 + 5 + 6);           // bottom-left
}

TEST_CASE("interpreter: max-reduction with a condition", "[interpreter]") {
  Tensor a = placeholder({3, 4}, DataType::int32(), "A");
  IterVar r = reduce_axis(4, "r");
  // The largest element of row i, skipping column i.
  Tensor m = compute({3}, [&](Var i) { return max_reduce(a(i, r), {r}, ne(r.var(), i)); }, "M");
  NDArray av = NDArray::from_vector<int32_t>({3, 4}, {9, 1, 2, 3,  //
                                                      4, 8, 6, -1,  //
                                                      -5, -7, 7, -6});
  NDArray out = evaluate(m, {{a, av}});
  CHECK(std::vector<int32_t>(out.data_as<int32_t>(), out.data_as<int32_t>() + 3) == std::vector<int32_t>{3, 6, -5});

  // No point satisfies the condition: the result is the combiner's identity.
  IterVar q = reduce_axis(4, "q");
  Tensor none = compute({3}, [&](Var i) { return max_reduce(cast(DataType::float32(), a(i, q)), {q}, q.var() > 9); }, "N");
  NDArray empty = evaluate(none, {{a, av}});
  CHECK(std::isinf(empty.data_as<float>()[0]));
  CHECK(empty.data_as<float>()[0] < 0);
}

TEST_CASE("interpreter: a sum starting from an initial value", "[interpreter]") {
  Tensor a = placeholder({2, 3}, DataType::int32(), "A");
  Tensor b = placeholder({2}, DataType::int32(), "B");
  IterVar r = reduce_axis(3, "r");
  // Row i's sum from B[i], counting the columns past i only.
  Tensor s = compute({2}, [&](Var i) { return sum(a(i, r), {r}, r.var() > i, b(i)); }, "S");
  NDArray av = NDArray::from_vector<int32_t>({2, 3}, {1, 2, 4,  //
                                                      8, 16, 32});
  NDArray out = evaluate(s, {{a, av}, {b, NDArray::from_vector<int32_t>({2}, {100, 200})}});
  CHECK(std::vector<int32_t>(out.data_as<int32_t>(), out.data_as<int32_t>() + 2) == std::vector<int32_t>{106, 232});
  // The start must be of the sum's type and may not read the reduction axis.
  IterVar q = reduce_axis(3, "q");
  test::require_user_error([&] { sum(a(0, q), {q}, Expr(), cast(DataType::float32(), b(0))); },
                           "cannot start from a float32");
  test::require_user_error([&] { sum(a(0, q), {q}, Expr(), b(q)); }, "reads its reduction axis 'q'");
}

TEST_CASE("interpreter: integer floor semantics, wrap-around and casts", "[interpreter]") {
  Tensor div = compute({7}, [&](Var i) { return (i - 3) / 2; }, "D");
  Tensor mod = compute({7}, [&](Var i) { return (i - 3) % 2; }, "M");
  Tensor neg = compute({3}, [&](Var i) { return 7 % (i - 3); }, "Neg");  // divisors -3, -2, -1
  auto values = [](const NDArray& x) {
    return std::vector<int32_t>(x.data_as<int32_t>(), x.data_as<int32_t>() + x.numel());
  };
  CHECK(values(evaluate(div, TensorValues{})) == std::vector<int32_t>{-2, -1, -1, 0, 0, 1, 1});
  CHECK(values(evaluate(mod, TensorValues{})) == std::vector<int32_t>{1, 0, 1, 0, 1, 0, 1});
  CHECK(values(evaluate(neg, TensorValues{})) == std::vector<int32_t>{-2, -1, 0});

  Tensor wrap = compute({2}, [&](Var i) { return cast(DataType::int8(), i + 100) + make_int(100, DataType::int8()); }, "W");
  NDArray w = evaluate(wrap, TensorValues{});
  CHECK(w.data_as<int8_t>()[0] == -56);
  CHECK(w.data_as<int8_t>()[1] == -55);

  Tensor trunc = compute({2}, [&](Var i) { return cast(DataType::int32(), make_float(-2.7) + cast(DataType::float32(), i) * 5.0); }, "T");
  CHECK(values(evaluate(trunc, TensorValues{})) == std::vector<int32_t>{-2, 2});

  Tensor big = compute({1}, [&](Var i) { return cast(DataType::int64(), i) + Expr(int64_t{1} << 53) + 1; }, "Big");
  CHECK(evaluate(big, TensorValues{}).data_as<int64_t>()[0] == (int64_t{1} << 53) + 1);
}

TEST_CASE("interpreter: intrinsics and bool tensors", "[interpreter]") {
  Tensor x = placeholder({3}, DataType::float32(), "X");
  NDArray xv = NDArray::from_vector<float>({3}, {0.0f, 1.0f, 4.0f});
  auto apply = [&](const char* name) {
    return evaluate(compute({3}, [&](Var i) { return call(name, {x(i)}); }, name), {{x, xv}});
  };
  CHECK(apply("sigmoid").data_as<float>()[0] == 0.5f);
  CHECK(apply("exp").data_as<float>()[1] == static_cast<float>(std::exp(1.0)));
  CHECK(apply("sqrt").data_as<float>()[2] == 2.0f);
  CHECK(apply("tanh").data_as<float>()[0] == 0.0f);
  CHECK(apply("log").data_as<float>()[1] == 0.0f);
  CHECK(apply("fabs").data_as<float>()[2] == 4.0f);
  test::require_user_error([&] { apply("erf"); }, "unknown intrinsic 'erf'");

  Tensor positive = compute({3}, [&](Var i) { return x(i) > 0.5; }, "Pos");
  NDArray p = evaluate(positive, {{x, xv}});
  CHECK(p.dtype() == DataType::boolean());
  CHECK(std::vector<bool>{p.data_as<bool>()[0], p.data_as<bool>()[1], p.data_as<bool>()[2]} ==
        std::vector<bool>{false, true, true});
}

TEST_CASE("interpreter: shared producers are computed once and reused", "[interpreter]") {
  Tensor a = placeholder({4}, DataType::float32(), "A");
  Tensor sq = compute({4}, [&](Var i) { return a(i) * a(i); }, "Sq");
  Tensor both = compute({4}, [&](Var i) { return sq(i) + sq(3 - i); }, "Both");
  NDArray av = NDArray::from_vector<float>({4}, {1, 2, 3, 4});
  std::vector<NDArray> outs = evaluate({both, sq}, TensorValues{{a.get(), &av}});
  CHECK(std::vector<float>(outs[0].data_as<float>(), outs[0].data_as<float>() + 4) == std::vector<float>{17, 13, 13, 17});
  CHECK(std::vector<float>(outs[1].data_as<float>(), outs[1].data_as<float>() + 4) == std::vector<float>{1, 4, 9, 16});
}

TEST_CASE("interpreter: errors name the problem", "[interpreter]") {
  Tensor a = placeholder({4}, DataType::float32(), "A");
  Tensor shifted = compute({4}, [&](Var i) { return select(i > 0, a(i - 1), 0.0); }, "Shift");
  NDArray av = NDArray::zeros({4}, DataType::float32());
  test::require_user_error([&] { evaluate(shifted, TensorValues{}); }, "no value given for placeholder 'A'");
  NDArray wrong = NDArray::zeros({5}, DataType::float32());
  test::require_user_error([&] { evaluate(shifted, {{a, wrong}}); }, "float32[4]");
  NDArray wrong_type = NDArray::zeros({4}, DataType::int32());
  test::require_user_error([&] { evaluate(shifted, {{a, wrong_type}}); }, "but got int32[4]");
  // Both sides of a select are evaluated, so the unguarded read A[-1] is an error.
  test::require_user_error([&] { evaluate(shifted, {{a, av}}); }, "read of A[-1] is outside its shape [4]");
  Tensor zero_div = compute({2}, [&](Var i) { return 4 / i; }, "Z");
  test::require_user_error([&] { evaluate(zero_div, TensorValues{}); }, "division by zero");
  Buffer buf("buf", DataType::float32(), MemoryScope::global());
  Tensor loop_ir = compute({2}, [&](Var i) { return load(buf, i); }, "L");
  test::require_user_error([&] { evaluate(loop_ir, TensorValues{}); }, "Load node");
}
