// The graph IR: building with inferred types, the Boost topology, users and topological order,
// rewrites (replace, set_input, remove, rename), the printer's text, attribute access, layouts,
// and the verifier catching what passes may break.
#include "ir/graph/graph.h"

#include <boost/graph/adjacency_list.hpp>
#include <catch2/catch.hpp>

#include "ir/graph/op.h"
#include "ir/graph/printer.h"
#include "ir/graph/verifier.h"
#include "support/registry.h"
#include "tests/user_error_check.h"

using namespace tessel;
using namespace tessel::graph;

namespace {

TensorType image(std::vector<int64_t> shape) { return {std::move(shape), DataType::float32(), "NCHW"}; }

// x -> conv2d(w) -> relu -> add(x') where x' = relu(x) is a second branch: a small diamond.
struct Diamond {
  Graph g;
  ValueId x, w, conv, relu, skip, sum;
  Diamond() {
    x = g.add_input("x", image({1, 4, 8, 8}));
    w = g.add_constant("w", NDArray::random_uniform({4, 4, 3, 3}, DataType::float32(), 1));
    conv = g.add_op("conv2d", {x, w}, {{"pads", Ints{1, 1, 1, 1}}}, "conv");
    relu = g.add_op("relu", {conv}, {}, "relu");
    skip = g.add_op("relu", {x}, {}, "skip");
    sum = g.add_op("add", {relu, skip}, {}, "sum");
    g.add_output(sum);
  }
};

}  // namespace

TEST_CASE("graph: nodes get the types their operators compute", "[graph]") {
  Diamond d;
  CHECK(d.g.value(d.conv).type == image({1, 4, 8, 8}));
  CHECK(d.g.value(d.w).type == TensorType{{4, 4, 3, 3}, DataType::float32(), ""});
  ValueId pooled = d.g.add_op("max_pool2d", {d.sum}, {{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}});
  CHECK(d.g.value(pooled).type == image({1, 4, 4, 4}));
  ValueId flat = d.g.add_op("reshape", {pooled}, {{"shape", Ints{1, 64}}});
  CHECK(d.g.value(flat).type == TensorType{{1, 64}, DataType::float32(), ""});
  std::vector<ValueId> halves = d.g.add_node("split", {flat}, {{"axis", int64_t{1}}, {"split", Ints{16, 48}}});
  REQUIRE(halves.size() == 2);
  CHECK(d.g.value(halves[1]).type.shape == std::vector<int64_t>{1, 48});
  CHECK(d.g.value(halves[1]).output_index == 1);
  CHECK(find_problems(d.g).empty());
}

TEST_CASE("graph: users, producers and the Boost topology agree", "[graph]") {
  Diamond d;
  CHECK(d.g.users(d.x) == std::vector<Use>{{d.g.value(d.conv).producer, 0}, {d.g.value(d.skip).producer, 0}});
  CHECK(d.g.users(d.sum).empty());
  CHECK(d.g.is_output(d.sum));
  CHECK(d.g.constant_value(d.w) != nullptr);
  CHECK(d.g.constant_value(d.x) == nullptr);
  CHECK(boost::num_edges(d.g.topology()) == 6);  // one edge per use: x twice, w, conv, relu and skip into add
  std::vector<NodeId> order = d.g.topological_order();
  auto position = [&](ValueId v) {
    return std::find(order.begin(), order.end(), d.g.value(v).producer) - order.begin();
  };
  CHECK(position(d.x) < position(d.conv));
  CHECK(position(d.conv) < position(d.relu));
  CHECK(position(d.relu) < position(d.sum));
  CHECK(position(d.skip) < position(d.sum));
  CHECK(order.size() == 6);
}

TEST_CASE("graph: rewrites keep uses, edges and outputs consistent", "[graph]") {
  Diamond d;
  // Bypass the first relu: its readers read the convolution instead.
  d.g.replace_all_uses(d.relu, d.conv);
  CHECK(d.g.users(d.relu).empty());
  CHECK(d.g.node(d.g.value(d.sum).producer).inputs[0] == d.conv);
  d.g.remove_node(d.g.value(d.relu).producer);
  CHECK(d.g.nodes().size() == 5);
  CHECK(!d.g.find_value("relu").has_value());
  CHECK(find_problems(d.g).empty());
  // The output can move too, and the old node goes.
  ValueId doubled = d.g.add_op("mul", {d.sum, d.sum}, {}, "doubled");
  d.g.replace_all_uses(d.sum, doubled);
  CHECK(d.g.outputs() == std::vector<ValueId>{doubled});
  CHECK(d.g.node(d.g.value(doubled).producer).inputs == std::vector<ValueId>{doubled, doubled});
  CHECK(!find_problems(d.g).empty());  // mul now reads itself: a cycle
  d.g.set_input(d.g.value(doubled).producer, 0, d.sum);
  d.g.set_input(d.g.value(doubled).producer, 1, d.sum);
  CHECK(find_problems(d.g).empty());
  d.g.rename_value(doubled, "y");
  CHECK(d.g.find_value("y") == doubled);
  // An attribute that keeps the types is set.
  d.g.set_attr(d.g.value(d.conv).producer, "dilations", Ints{1, 1});
  CHECK(d.g.node(d.g.value(d.conv).producer).attrs.ints("dilations") == Ints{1, 1});
}

TEST_CASE("graph: bad rewrites and bad nodes are user errors naming what is wrong", "[graph]") {
  Diamond d;
  test::require_user_error([&] { d.g.remove_node(d.g.value(d.conv).producer); },
                           {"cannot remove node 'conv'", "still used"});
  test::require_user_error([&] { d.g.replace_all_uses(d.conv, d.w); }, {"the types differ"});
  test::require_user_error([&] { d.g.add_op("no_such_op", {d.x}); }, {"no_such_op", "relu"});
  test::require_user_error([&] { d.g.add_op("conv2d", {d.x}, {}, "bad_conv"); },
                           {"node 'bad_conv' (conv2d)", "takes 2 inputs"});
  test::require_user_error([&] { d.g.add_input("x", image({1, 1, 1, 1})); }, {"'x' is defined twice"});
  test::require_user_error([&] { d.g.add_input("huge", image({1 << 20, 1 << 20, 1, 1})); }, {"huge", "2^31"});
  test::require_user_error([&] { d.g.add_input("odd", {{1, 2}, DataType::float32(), "NCHW"}); }, {"layout 'NCHW'"});
  test::require_user_error([&] { d.g.rename_value(d.conv, "x"); }, {"'x' is taken"});
  NodeId conv = d.g.value(d.conv).producer;
  test::require_user_error([&] { d.g.set_attr(conv, "strides", Ints{2, 2}); },
                           {"node 'conv' (conv2d)", "'strides' would change the type of output 0"});
  test::require_user_error([&] { d.g.set_attr(conv, "strides", Ints{0, 0}); }, {"node 'conv' (conv2d)"});
  CHECK(!d.g.node(conv).attrs.has("strides"));  // neither was set
}

TEST_CASE("graph: the verifier reports broken invariants", "[graph]") {
  Graph empty;
  empty.add_input("x", image({1, 1, 2, 2}));
  CHECK(find_problems(empty) == std::vector<std::string>{"the graph has no output"});
  Diamond d;
  d.g.set_input(d.g.value(d.conv).producer, 0, d.g.add_op("relu", {d.sum}));  // conv reads what it feeds
  test::require_user_error([&] { verify(d.g); }, {"not well-formed", "cycle"});
  test::require_user_error([&] { d.g.topological_order(); }, {"cycle through node"});
}

TEST_CASE("graph: the printer shows nodes in order with attributes and types", "[graph][printer]") {
  Diamond d;
  CHECK(to_string(d.g) ==
        "graph(%x: float32[1, 4, 8, 8] NCHW) {\n"
        "  %w = constant float32[4, 4, 3, 3]\n"
        "  %conv = conv2d(%x, %w) {pads=[1, 1, 1, 1]}  // float32[1, 4, 8, 8] NCHW\n"
        "  %relu = relu(%conv)  // float32[1, 4, 8, 8] NCHW\n"
        "  %skip = relu(%x)  // float32[1, 4, 8, 8] NCHW\n"
        "  %sum = add(%relu, %skip)  // float32[1, 4, 8, 8] NCHW\n"
        "  return %sum\n"
        "}\n");
}

TEST_CASE("graph: attributes are typed and print canonically", "[graph][attributes]") {
  Attributes a{{"strides", Ints{2, 2}}, {"alpha", 0.5}, {"mode", std::string("edge")}, {"groups", int64_t{4}}};
  CHECK(a.ints("strides") == Ints{2, 2});
  CHECK(a.get_float("groups") == 4.0);  // an integer reads as a float
  CHECK(a.get_int("missing", 7) == 7);
  CHECK(a.str() == "{alpha=0.5, groups=4, mode=\"edge\", strides=[2, 2]}");
  CHECK(Attributes{{"epsilon", double(1e-5f)}}.str() == "{epsilon=9.99999975e-06}");
  CHECK(Attributes{{"x", 0.1}}.str() == "{x=0.1}");
  CHECK(Attributes{{"x", 0.1 + 1e-17 * 2}}.str() == "{x=0.10000000000000002}");  // needs all 17 digits
  CHECK(Attributes{{"x", 1.0}}.str() == "{x=1.0}");
  test::require_user_error([&] { a.get_int("alpha"); }, {"'alpha' is a float but must be an integer"});
  test::require_user_error([&] { a.ints("missing"); }, {"'missing' is missing"});
}

TEST_CASE("graph: layouts name their dimensions", "[graph]") {
  CHECK(layout_rank("NCHW") == 4);
  CHECK(layout_rank("NCHW8c") == 5);
  CHECK(layout_rank("OIHW8i16o") == 6);
  CHECK(layout_rank("") == 0);
  CHECK(layout_rank("NC8") == -1);
  CHECK(layout_rank("nchw") == -1);
}

TEST_CASE("graph: every graph operator declares one of the four op patterns", "[graph][ops]") {
  CHECK(graph_op("conv2d").pattern() == OpPattern::ComplexOutFusable);
  CHECK(graph_op("dense").pattern() == OpPattern::ComplexOutFusable);
  CHECK(graph_op("max_pool2d").pattern() == OpPattern::ComplexOutFusable);
  CHECK(graph_op("relu").pattern() == OpPattern::Injective);
  CHECK(graph_op("reshape").pattern() == OpPattern::Injective);
  CHECK(graph_op("reduce_mean").pattern() == OpPattern::Reduction);
  CHECK(graph_op("softmax").pattern() == OpPattern::Opaque);
  for (const std::string& name : Registry<GraphOp>::instance().names()) {
    INFO(name);
    std::string pattern = op_pattern_name(graph_op(name).pattern());
    CHECK(
        (pattern == "injective" || pattern == "reduction" || pattern == "complex-out-fusable" || pattern == "opaque"));
  }
}
