// The ONNX importer on models written here with libonnx's protobuf classes: names and types kept,
// auto_pad and shape arithmetic resolved at import, and every kind of bad input a one-line
// UserError naming what and where: missing, truncated and foreign files, unsupported opsets and
// IR versions, missing initializers, dynamic shapes, unsupported operators (all at once), inputs
// an operator needs at import.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <limits>

#include "frontends/onnx/onnx_importer.h"
#include "frontends/onnx/onnx_tensor.h"
#include "ir/graph/printer.h"
#include "ops/graph/unfused_executor.h"
#include "tests/user_error_check.h"

using namespace tessel;
using namespace tessel::frontend;

namespace {

// A model under construction: opset 13, IR version 7.
struct ModelBuilder {
  ::onnx::ModelProto model;
  ModelBuilder(int opset = 13) {
    model.set_ir_version(7);
    model.add_opset_import()->set_version(opset);
  }
  ::onnx::GraphProto& g() { return *model.mutable_graph(); }

  // A tensor value: fixed dims as numbers, symbolic ones as strings.
  void value(::onnx::ValueInfoProto* v, const std::string& name, std::vector<std::variant<int64_t, std::string>> dims,
             int type = ::onnx::TensorProto_DataType_FLOAT) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(type);
    auto* shape = t->mutable_shape();
    for (const auto& d : dims) {
      if (auto* fixed = std::get_if<int64_t>(&d))
        shape->add_dim()->set_dim_value(*fixed);
      else
        shape->add_dim()->set_dim_param(std::get<std::string>(d));
    }
  }
  void input(const std::string& name, std::vector<std::variant<int64_t, std::string>> dims, int type = 1) {
    value(g().add_input(), name, std::move(dims), type);
  }
  void output(const std::string& name) { g().add_output()->set_name(name); }
  ::onnx::NodeProto& node(const std::string& op, std::vector<std::string> in, std::vector<std::string> out,
                          const std::string& name = "") {
    auto* n = g().add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto& i : in) n->add_input(i);
    for (const auto& o : out) n->add_output(o);
    return *n;
  }
  void initializer(const std::string& name, std::vector<int64_t> dims, std::vector<float> values) {
    auto* t = g().add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto_DataType_FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    for (float v : values) t->add_float_data(v);
  }
  void int_initializer(const std::string& name, std::vector<int64_t> values) {
    auto* t = g().add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto_DataType_INT64);
    t->add_dims(static_cast<int64_t>(values.size()));
    for (int64_t v : values) t->add_int64_data(v);
  }
  graph::Graph import(const ImportOptions& options = {}) const {
    std::string bytes = model.SerializeAsString();
    return import_onnx_bytes(bytes.data(), bytes.size(), "test model", options);
  }
};

void set_ints(::onnx::NodeProto& n, const std::string& name, std::vector<int64_t> values) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto_AttributeType_INTS);
  for (int64_t v : values) a->add_ints(v);
}

void set_string(::onnx::NodeProto& n, const std::string& name, const std::string& value) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto_AttributeType_STRING);
  a->set_s(value);
}

// x[1, 2, 5, 5] -> Conv(w, b; SAME_UPPER, stride 2) -> Relu -> y
ModelBuilder conv_relu() {
  ModelBuilder m;
  m.input("x", {1, 2, 5, 5});
  m.initializer("w", {3, 2, 2, 2}, std::vector<float>(24, 0.5f));
  m.initializer("b", {3}, {1, 2, 3});
  auto& conv = m.node("Conv", {"x", "w", "b"}, {"c"}, "conv1");
  set_string(conv, "auto_pad", "SAME_UPPER");
  set_ints(conv, "strides", {2, 2});
  m.node("Relu", {"c"}, {"y"}, "relu1");
  m.output("y");
  return m;
}

std::string write_file(const std::string& name, const std::string& bytes) {
  std::string path = (std::filesystem::temp_directory_path() / ("tessel_onnx_test_" + name)).string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

}  // namespace

TEST_CASE("onnx import: a convolution with bias and auto_pad", "[onnx]") {
  graph::Graph g = conv_relu().import();
  CHECK(graph::to_string(g) ==
        "graph(%x: float32[1, 2, 5, 5] NCHW) {\n"
        "  %w = constant float32[3, 2, 2, 2]\n"
        "  %b = constant float32[3]\n"
        "  %conv1/conv2d = conv2d(%x, %w) {dilations=[1, 1], groups=1, pads=[0, 0, 1, 1], strides=[2, 2]}"
        "  // float32[1, 3, 3, 3] NCHW\n"
        "  %c = bias_add(%conv1/conv2d, %b) {axis=1}  // float32[1, 3, 3, 3] NCHW\n"
        "  %y = relu(%c)  // float32[1, 3, 3, 3] NCHW\n"
        "  return %y\n"
        "}\n");
  // Every output point sees a 2x2x2 window of ones (the bottom-right ones half in the padding).
  ops::UnfusedExecutor exec(g);
  NDArray y = exec.run({{"x", NDArray::from_vector<float>({1, 2, 5, 5}, std::vector<float>(50, 1.0f))}})[0];
  CHECK(y.data_as<float>()[0] == 0.5f * 8 + 1);
  CHECK(y.data_as<float>()[8] == 0.5f * 2 + 1);  // channel 0, bottom-right: one point inside
}

TEST_CASE("onnx import: shape arithmetic is folded, so Reshape gets a static shape", "[onnx]") {
  ModelBuilder m;
  m.input("x", {2, 3, 4});
  m.node("Shape", {"x"}, {"s"});
  m.int_initializer("zero", {0});
  m.node("Gather", {"s", "zero"}, {"batch"});  // [2]
  m.int_initializer("minus_one", {-1});
  auto& concat = m.node("Concat", {"batch", "minus_one"}, {"target"});
  auto* axis = concat.add_attribute();
  axis->set_name("axis");
  axis->set_type(::onnx::AttributeProto_AttributeType_INT);
  axis->set_i(0);
  m.node("Reshape", {"x", "target"}, {"y"});
  m.output("y");
  graph::Graph g = m.import();
  CHECK(g.nodes().size() == 2);  // the input and the reshape: the shape computation left nothing behind
  CHECK(g.value(g.outputs()[0]).type.shape == std::vector<int64_t>{2, 12});
}

TEST_CASE("onnx import: a Slice to INT64_MAX (PyTorch's export of x[:, 1:]) keeps the rest of the axis", "[onnx]") {
  // The ends are read exactly: through a double, INT64_MAX became 2^63, out of int64's range.
  ModelBuilder m;
  m.input("x", {1, 4, 2});
  m.int_initializer("starts", {1});
  m.int_initializer("ends", {std::numeric_limits<int64_t>::max()});
  m.int_initializer("axes", {1});
  m.node("Slice", {"x", "starts", "ends", "axes"}, {"y"});
  m.output("y");
  graph::Graph g = m.import();
  REQUIRE(g.value(g.outputs()[0]).type.shape == std::vector<int64_t>{1, 3, 2});
  std::vector<float> x = {0, 1, 2, 3, 4, 5, 6, 7};
  NDArray y = ops::UnfusedExecutor(g).run({{"x", NDArray::from_vector<float>({1, 4, 2}, x)}})[0];
  CHECK(std::vector<float>(y.data_as<float>(), y.data_as<float>() + 6) == std::vector<float>{2, 3, 4, 5, 6, 7});
}

TEST_CASE("onnx import: outputs keep their names, also when they alias another value", "[onnx]") {
  ModelBuilder m;
  m.input("x", {4});
  m.node("Relu", {"x"}, {"r"});
  m.node("Identity", {"r"}, {"y"});
  m.node("Identity", {"x"}, {"z"});
  m.output("r");
  m.output("y");
  m.output("z");
  graph::Graph g = m.import();
  REQUIRE(g.outputs().size() == 3);
  CHECK(g.value(g.outputs()[0]).name == "r");
  CHECK(g.value(g.outputs()[1]).name == "y");
  CHECK(g.value(g.outputs()[2]).name == "z");
  ops::UnfusedExecutor exec(g);
  std::vector<NDArray> out = exec.run({{"x", NDArray::from_vector<float>({4}, {-1, 2, -3, 4})}});
  CHECK(out[1].data_as<float>()[1] == 2);
  CHECK(out[2].data_as<float>()[0] == -1);
}

TEST_CASE("onnx import: files that are not ONNX models", "[onnx][errors]") {
  test::require_user_error([] { import_onnx("/nonexistent/model.onnx"); },
                           {"cannot read the ONNX model '/nonexistent/model.onnx'"});
  std::string text = write_file("text.onnx", "this is not a model\n");
  test::require_user_error([&] { import_onnx(text); }, {text.c_str(), "not an ONNX model"});
  std::string empty = write_file("empty.onnx", "");
  test::require_user_error([&] { import_onnx(empty); }, {"not an ONNX model", "no graph"});
  std::string bytes = conv_relu().model.SerializeAsString();
  for (size_t cut : {bytes.size() / 3, bytes.size() / 2, bytes.size() - 1}) {
    INFO("truncated to " << cut << " of " << bytes.size() << " bytes");
    test::require_user_error([&] { import_onnx_bytes(bytes.data(), cut, "truncated", {}); }, {"truncated"});
  }
}

TEST_CASE("onnx import: unsupported versions", "[onnx][errors]") {
  ModelBuilder old(6);
  old.input("x", {4});
  old.node("Relu", {"x"}, {"y"});
  old.output("y");
  CHECK_THROWS_AS(old.import(), UnsupportedModel);
  test::require_user_error([&] { old.import(); }, {"opset 6", "7 to 17"});
  ModelBuilder future = conv_relu();
  future.model.set_ir_version(99);
  test::require_user_error([&] { future.import(); }, {"IR version 99"});
  ModelBuilder no_opset = conv_relu();
  no_opset.model.clear_opset_import();
  test::require_user_error([&] { no_opset.import(); }, {"declares no opset"});
}

TEST_CASE("onnx import: a missing initializer names the node and the value", "[onnx][errors]") {
  ModelBuilder m = conv_relu();
  m.g().mutable_initializer()->RemoveLast();  // b
  test::require_user_error([&] { m.import(); }, {"node 'conv1' (Conv)", "'b'", "no graph input, initializer"});
  ModelBuilder short_data = conv_relu();
  short_data.g().mutable_initializer(0)->mutable_float_data()->RemoveLast();
  test::require_user_error([&] { short_data.import(); }, {"initializer 'w'", "23 values", "needs 24"});
}

TEST_CASE("onnx import: dynamic dimensions must be fixed", "[onnx][errors]") {
  ModelBuilder m;
  m.input("x", {std::string("batch"), 3});
  m.node("Relu", {"x"}, {"y"});
  m.output("y");
  test::require_user_error([&] { m.import(); }, {"graph input 'x'", "dynamic dimension 0 ('batch')", "dim_params"});
  CHECK(m.import({.dim_params = {{"batch", 5}}}).value(0).type.shape == std::vector<int64_t>{5, 3});
  CHECK(m.import({.input_shapes = {{"x", {2, 3}}}}).value(0).type.shape == std::vector<int64_t>{2, 3});
  test::require_user_error([&] { m.import({.input_shapes = {{"x", {2, 4}}}}); }, {"static dimension 1 = 3", "says 4"});
  test::require_user_error([&] { m.import({.input_shapes = {{"nope", {1}}}}); }, {"'nope', which is not an input"});
}

TEST_CASE("onnx import: unsupported operators are reported at once, with their nodes", "[onnx][errors]") {
  ModelBuilder m;
  m.input("x", {4});
  m.node("Sin", {"x"}, {"a"}, "first");
  m.node("Relu", {"a"}, {"b"}, "fine");
  m.node("Cos", {"b"}, {"c"}, "second");
  m.node("Sin", {"c"}, {"d"}, "third");
  m.node("Custom", {"d"}, {"e"}, "mine").set_domain("com.example");
  m.output("e");
  try {
    m.import();
    FAIL("expected UnsupportedModel");
  } catch (const UnsupportedModel& e) {
    std::string msg = e.what();
    INFO(msg);
    for (const char* part : {"Sin (nodes 'first', 'third')", "Cos (node 'second')", "com.example.Custom (node 'mine')"})
      CHECK(msg.find(part) != std::string::npos);
    CHECK(msg.find("Relu") == std::string::npos);
  }
}

TEST_CASE("onnx import: inputs an operator needs at import can be given as constants", "[onnx]") {
  ModelBuilder m;
  m.input("x", {2, 6});
  m.input("shape", {2}, ::onnx::TensorProto_DataType_INT64);
  m.node("Reshape", {"x", "shape"}, {"y"}, "reshape");
  m.output("y");
  try {
    m.import();
    FAIL("expected NeedsConstantInput");
  } catch (const NeedsConstantInput& e) {
    CHECK(e.input == "shape");
    CHECK(std::string(e.what()).find("node 'reshape' (Reshape)") != std::string::npos);
  }
  graph::Graph g = m.import({.constant_inputs = {{"shape", NDArray::from_vector<int64_t>({2}, {3, 4})}}});
  CHECK(g.inputs().size() == 1);
  CHECK(g.value(g.outputs()[0]).type.shape == std::vector<int64_t>{3, 4});
  test::require_user_error(
      [&] {
        m.import({.constant_inputs = {{"shape", NDArray::from_vector<int64_t>({3}, {1, 3, 4})}}});
      },
      {"graph input 'shape'", "static dimension 0 = 2"});
  test::require_user_error(
      [&] {
        m.import({.constant_inputs = {{"shape", NDArray::from_vector<float>({2}, {3, 4})}}});
      },
      {"the value given for graph input 'shape'"});
}

TEST_CASE("onnx import: unsupported element types and attribute combinations", "[onnx][errors]") {
  ModelBuilder m;
  m.input("x", {4}, ::onnx::TensorProto_DataType_DOUBLE);
  m.node("Relu", {"x"}, {"y"});
  m.output("y");
  CHECK_THROWS_AS(m.import(), UnsupportedModel);
  test::require_user_error([&] { m.import(); }, {"graph input 'x'", "DOUBLE", "not supported"});
  ModelBuilder pool;
  pool.input("x", {1, 1, 8});
  auto& n = pool.node("MaxPool", {"x"}, {"y"}, "pool1d");
  set_ints(n, "kernel_shape", {2});
  pool.output("y");
  test::require_user_error([&] { pool.import(); }, {"node 'pool1d' (MaxPool)", "only 2-D"});
}

TEST_CASE("onnx import: the operators the graph issue lists are supported", "[onnx]") {
  std::vector<std::string> supported = supported_onnx_ops();
  for (const char* op : {"Conv",
                         "ConvTranspose",
                         "Gemm",
                         "MatMul",
                         "Add",
                         "Sub",
                         "Mul",
                         "Div",
                         "Relu",
                         "Clip",
                         "Sigmoid",
                         "Tanh",
                         "LeakyRelu",
                         "HardSigmoid",
                         "HardSwish",
                         "BatchNormalization",
                         "MaxPool",
                         "AveragePool",
                         "GlobalAveragePool",
                         "ReduceMean",
                         "Flatten",
                         "Reshape",
                         "Transpose",
                         "Concat",
                         "Split",
                         "Slice",
                         "Squeeze",
                         "Unsqueeze",
                         "Pad",
                         "Softmax",
                         "LSTM",
                         "Constant",
                         "Identity",
                         "Dropout",
                         "Shape",
                         "Gather",
                         "Cast"}) {
    INFO(op);
    CHECK(std::binary_search(supported.begin(), supported.end(), std::string(op)));
  }
}
