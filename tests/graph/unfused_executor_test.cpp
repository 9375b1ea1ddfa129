// The unfused executor: a small graph run end to end against values computed here, kernels shared
// between nodes computing the same thing, graph outputs that are inputs or constants, and the
// errors a caller can make (wrong input names, shapes, element types).
#include "ops/graph/unfused_executor.h"

#include <catch2/catch.hpp>

#include "tests/user_error_check.h"

using namespace tessel;
using namespace tessel::graph;

TEST_CASE("unfused executor: runs a graph node by node", "[graph][executor]") {
  Graph g;
  ValueId x = g.add_input("x", {{2, 3}, DataType::float32(), ""});
  ValueId b = g.add_constant("b", NDArray::from_vector<float>({3}, {1, -2, 3}));
  ValueId y = g.add_op("relu", {g.add_op("add", {x, b})});
  ValueId z = g.add_op("relu", {g.add_op("mul", {y, y})});  // a second relu of the same type: one kernel
  g.add_output(z);
  g.add_output(b);  // a constant as an output
  ops::UnfusedExecutor exec(g);
  CHECK(exec.num_steps() == 4);
  CHECK(exec.num_kernels() == 3);
  NDArray in = NDArray::from_vector<float>({2, 3}, {0, 1, -4, -2, 3, 0.5});
  std::vector<NDArray> out = exec.run({{"x", in}});
  std::vector<float> expected{1, 0, 0, 0, 1, 12.25};
  for (int i = 0; i < 6; ++i) CHECK(out[0].data_as<float>()[i] == Approx(expected[i]));
  CHECK(out[1].data_as<float>()[1] == -2);
  // Runs again with new data, and the outputs are the caller's own arrays.
  out[0].data_as<float>()[0] = 99;
  std::vector<NDArray> again = exec.run({{"x", NDArray::zeros({2, 3}, DataType::float32())}});
  CHECK(again[0].data_as<float>()[2] == 9);
  CHECK(out[0].data_as<float>()[0] == 99);
}

TEST_CASE("unfused executor: bad inputs are user errors", "[graph][executor]") {
  Graph g;
  ValueId x = g.add_input("x", {{4}, DataType::float32(), ""});
  g.add_output(g.add_op("relu", {x}));
  ops::UnfusedExecutor exec(g);
  NDArray good = NDArray::zeros({4}, DataType::float32());
  test::require_user_error([&] { exec.run({}); }, {"no array was given for the graph input 'x'"});
  test::require_user_error([&] { exec.run({{"x", good}, {"y", good}}); }, {"no input named 'y'", "x"});
  test::require_user_error([&] { exec.run({{"x", NDArray::zeros({5}, DataType::float32())}}); }, {"graph input 'x'"});
  test::require_user_error([&] { exec.run({{"x", NDArray::zeros({4}, DataType::int32())}}); }, {"graph input 'x'"});
  Graph broken;
  broken.add_input("x", {{4}, DataType::float32(), ""});
  test::require_user_error([&] { ops::UnfusedExecutor{broken}; }, {"no output"});
}
