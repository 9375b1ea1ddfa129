// GEMM and dense: the tensor expressions (with their packed panels, including widths that do not
// divide N) against a plain loop reference, and compiled with the default schedule.
#include "ops/gemm.h"
#include "tests/ops/ops_test_util.h"
#include "tests/ops/reference_ops.h"

using namespace tessel;
using namespace tessel::ops;

namespace {

struct MatmulCase {
  int64_t m, n, k, bn;
};
const MatmulCase kCases[] = {{8, 32, 16, 0}, {5, 37, 11, 16}, {13, 64, 9, 0}, {16, 48, 33, 32}};

}  // namespace

TEST_CASE("gemm and dense compute the matrix product", "[ops][gemm]") {
  for (const MatmulCase& c : kCases) {
    Tensor a = placeholder({c.m, c.k}, DataType::float32(), "A");
    Tensor b = placeholder({c.k, c.n}, DataType::float32(), "B");
    Tensor w = placeholder({c.n, c.k}, DataType::float32(), "W");
    NDArray av = test::random_array(a.shape(), 3), bv = test::random_array(b.shape(), 4);
    NDArray wv = test::random_array(w.shape(), 5);
    auto [va, vb, vw] = std::tuple(test::to_vector(av), test::to_vector(bv), test::to_vector(wv));
    test::check_definition(gemm(a, b, c.bn), {{a, av}, {b, bv}},
                           test::reference_matmul(c.m, c.n, c.k, va, vb, false));
    test::check_definition(dense(a, w, c.bn), {{a, av}, {w, wv}},
                           test::reference_matmul(c.m, c.n, c.k, va, vw, true));
  }
}

TEST_CASE("gemm rejects mismatched operands", "[ops][gemm]") {
  Tensor a = placeholder({4, 5}, DataType::float32(), "A");
  Tensor b = placeholder({6, 3}, DataType::float32(), "B");
  CHECK_THROWS_WITH(gemm(a, b), Catch::Contains("columns of A must equal the rows of B"));
  CHECK_THROWS_WITH(dense(a, b), Catch::Contains("same number of columns"));
}
