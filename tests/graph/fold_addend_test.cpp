// Folding a bias into the sum it follows (ops/graph/fold_addend.h): the folded sum computes what
// the sum plus its addend computed (the interpreter's values), and every form that is not a sum
// plus an independent addend at the sum's own point is left alone.
#include "ops/graph/fold_addend.h"

#include <catch2/catch.hpp>

#include "ir/te_interpreter.h"

using namespace tessel;

namespace {

struct Dense {
  Tensor x = placeholder({1, 6}, DataType::float32(), "x");
  Tensor w = placeholder({6, 5}, DataType::float32(), "w");
  Tensor b = placeholder({5}, DataType::float32(), "b");
  IterVar k = reduce_axis(6, "k");
  Tensor sum = compute({1, 5}, [&](Var i, Var j) { return tessel::sum(x(i, k) * w(k, j), {k}); }, "dense", "dense");

  // sum read at (0, j), as a broadcasting read of a batch of one reads it, plus b(j).
  Tensor biased() const {
    return compute({1, 5}, [&](Var, Var j) { return b(j) + sum(0, j); }, "add", "injective");
  }
  NDArray value(const Tensor& t) const {
    return evaluate(t, {{x, NDArray::random_uniform({1, 6}, DataType::float32(), 1)},
                        {w, NDArray::random_uniform({6, 5}, DataType::float32(), 2)},
                        {b, NDArray::random_uniform({5}, DataType::float32(), 3)}});
  }
};

}  // namespace

TEST_CASE("fold_addend_into_sum: a bias becomes the sum's start, the values unchanged", "[graph][fold]") {
  Dense d;
  Tensor folded = ops::fold_addend_into_sum(d.biased(), d.sum);
  REQUIRE(folded.defined());
  CHECK(folded.name() == "dense");
  CHECK(folded->tag == "dense");
  const Reduce* reduce = folded->body.as<Reduce>();
  REQUIRE(reduce);
  CHECK(reduce->init.defined());
  // The operator's operands stay its data and weights; the bias is read only by the start.
  CHECK(operand_tensors(folded).size() == 2);
  CHECK(input_tensors(folded).size() == 3);
  CHECK(max_abs_diff(d.value(folded), d.value(d.biased())) <= 1e-6);
}

TEST_CASE("fold_addend_into_sum: anything but sum + independent addend is left alone", "[graph][fold]") {
  Dense d;
  auto fold = [&](const std::function<Expr(Var, Var)>& body) {
    return ops::fold_addend_into_sum(compute({1, 5}, body, "add", "injective"), d.sum).defined();
  };
  CHECK(fold([&](Var i, Var j) { return d.sum(i, j) + d.b(j); }));
  CHECK_FALSE(fold([&](Var i, Var j) { return d.sum(i, j) * d.b(j); }));               // not an add
  CHECK_FALSE(fold([&](Var i, Var j) { return d.sum(i, j) + d.sum(i, 4 - j); }));      // the addend reads the sum
  CHECK_FALSE(fold([&](Var i, Var j) { return d.sum(i, 4 - j) + d.b(j); }));           // another point
  CHECK_FALSE(fold([&](Var i, Var j) { return d.sum(i, j) * 2.0f + d.b(j); }));        // not the sum itself
  // Not a sum, or a sum that already starts elsewhere.
  IterVar r = reduce_axis(6, "r");
  Tensor m = compute({1, 5}, [&](Var i, Var j) { return max_reduce(d.x(i, r) * d.w(r, j), {r}); }, "max");
  CHECK_FALSE(ops::fold_addend_into_sum(compute({1, 5}, [&](Var i, Var j) { return m(i, j) + d.b(j); }, "add"), m)
                  .defined());
  Tensor folded = ops::fold_addend_into_sum(d.biased(), d.sum);
  CHECK_FALSE(
      ops::fold_addend_into_sum(compute({1, 5}, [&](Var i, Var j) { return folded(i, j) + d.b(j); }, "add"), folded)
          .defined());
}
