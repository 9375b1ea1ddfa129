// The graph operators: every registered one compiled by the unfused executor against the reference
// interpreter on its own expression (so each compiles and runs right with its default schedule),
// and the semantics the ONNX conformance tests do not reach checked against loops written here:
// grouped, dilated transposed convolution, depthwise convolution with a channel multiplier, average
// pooling with ceil_mode, asymmetric pads and count_include_pad, truncating integer division.
#include <catch2/catch.hpp>
#include <cmath>
#include <set>

#include "ir/graph/op.h"
#include "ir/te_interpreter.h"
#include "ops/graph/unfused_executor.h"
#include "support/registry.h"
#include "tests/user_error_check.h"

using namespace tessel;
using namespace tessel::graph;

namespace {

struct OpCase {
  std::string op;
  std::vector<TensorType> inputs;
  Attributes attrs;
};

TensorType f32(std::vector<int64_t> shape) { return {std::move(shape), DataType::float32(), ""}; }
TensorType i64(std::vector<int64_t> shape) { return {std::move(shape), DataType::int64(), ""}; }

std::vector<OpCase> cases() {
  TensorType img = f32({1, 6, 7, 9});
  TensorType blocked = f32({1, 2, 7, 9, 3});  // img's channels in blocks of 3 (NCHW3c)
  return {
      {"relu", {img}, {}},
      {"sigmoid", {img}, {}},
      {"tanh", {img}, {}},
      {"exp", {img}, {}},
      {"log", {f32({3, 5})}, {}},
      {"sqrt", {f32({3, 5})}, {}},
      {"abs", {img}, {}},
      {"neg", {i64({4, 3})}, {}},
      {"leaky_relu", {img}, {{"alpha", 0.1}}},
      {"clip", {img}, {{"min", -0.25}, {"max", 0.5}}},
      {"hard_sigmoid", {img}, {}},
      {"hard_swish", {img}, {}},
      {"add", {img, f32({6, 1, 9})}, {}},
      {"sub", {f32({5, 1}), f32({3})}, {}},
      {"mul", {img, f32({})}, {}},
      {"div", {i64({4, 5}), i64({5})}, {}},
      {"bias_add", {img, f32({6})}, {{"axis", int64_t{1}}}},
      {"batch_norm", {img, f32({6}), f32({6}), f32({6}), f32({6})}, {{"epsilon", 1e-3}}},
      {"cast", {img}, {{"to", std::string("int32")}}},
      {"conv2d",
       {img, f32({4, 3, 3, 2})},
       {{"groups", int64_t{2}}, {"pads", Ints{1, 0, 2, 1}}, {"strides", Ints{2, 1}}}},
      {"conv2d_nchwc",
       {blocked, f32({2, 2, 3, 2, 3, 4})},
       {{"pads", Ints{1, 0, 2, 1}}, {"strides", Ints{2, 1}}}},
      {"conv2d_winograd_nchwc", {blocked, f32({4, 4, 2, 6, 4})}, {{"pads", Ints{1, 0, 2, 1}}, {"tile", int64_t{2}}}},
      {"conv2d_winograd_nchwc", {blocked, f32({6, 6, 2, 6, 4})}, {{"pads", Ints{1, 1, 1, 1}}, {"tile", int64_t{4}}}},
      {"depthwise_conv2d_nchwc", {blocked, f32({2, 1, 3, 3, 1, 3})}, {{"pads", Ints{1, 1, 1, 1}}, {"strides", Ints{2, 2}}}},
      {"layout_transform", {img}, {{"src_layout", std::string("NCHW")}, {"dst_layout", std::string("NCHW3c")}}},
      {"layout_transform", {blocked}, {{"src_layout", std::string("NCHW3c")}, {"dst_layout", std::string("NCHW2c")}}},
      {"layout_transform", {blocked}, {{"src_layout", std::string("NCHW3c")}, {"dst_layout", std::string("NCHW")}}},
      {"max_pool2d", {blocked}, {{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}}},
      {"avg_pool2d", {blocked}, {{"kernel_shape", Ints{2, 3}}, {"pads", Ints{0, 1, 1, 0}}, {"ceil_mode", int64_t{1}}}},
      {"global_avg_pool2d", {blocked}, {}},
      {"global_avg_pool2d", {f32({1, 2, 3, 3, 16})}, {}},  // a whole vector per channel block
      {"conv2d_transpose",
       {f32({1, 4, 3, 4}), f32({4, 3, 3, 3})},
       {{"groups", int64_t{2}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 0, 0, 1}}, {"output_padding", Ints{1, 0}}}},
      {"dense", {f32({3, 10}), f32({7, 10})}, {}},
      {"dense_packed", {f32({3, 10}), f32({2, 10, 4})}, {{"units", int64_t{7}}}},  // the last panel partly unused
      {"matmul", {f32({2, 1, 3, 4}), f32({5, 4, 6})}, {}},
      {"max_pool2d",
       {img},
       {{"kernel_shape", Ints{3, 2}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 0, 1, 1}}, {"ceil_mode", int64_t{1}}}},
      {"avg_pool2d", {img}, {{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}}},
      {"global_avg_pool2d", {img}, {}},
      {"global_max_pool2d", {img}, {}},
      {"reduce_sum", {img}, {{"axes", Ints{1, 3}}, {"keepdims", int64_t{0}}}},
      {"reduce_mean", {img}, {{"axes", Ints{-1}}}},
      {"reduce_mean", {f32({2, 5, 32})}, {{"axes", Ints{1}}}},  // kept last axis: vector lanes
      {"reduce_max", {img}, {}},
      {"reduce_min", {f32({4, 6})}, {{"axes", Ints{0}}}},
      {"softmax", {img}, {{"axis", int64_t{1}}}},
      {"log_softmax", {f32({3, 17})}, {}},
      {"identity", {img}, {}},
      {"broadcast_to", {f32({3, 1})}, {{"shape", Ints{2, 3, 4}}}},
      {"reshape", {img}, {{"shape", Ints{6, 63}}}},
      {"transpose", {img}, {{"perm", Ints{0, 2, 3, 1}}}},
      {"concat", {f32({2, 3}), f32({2, 5}), f32({2, 1})}, {{"axis", int64_t{1}}}},
      {"interleave", {img, img, img}, {{"strides", Ints{3, 1}}}},
      {"interleave", {blocked, blocked, blocked, blocked}, {{"strides", Ints{2, 2}}}},
      {"split", {img}, {{"axis", int64_t{3}}, {"split", Ints{2, 7}}}},
      {"strided_slice",
       {img},
       {{"starts", Ints{-1, 1}}, {"ends", Ints{-100, 8}}, {"axes", Ints{3, 2}}, {"steps", Ints{-2, 3}}}},
      {"pad", {f32({3, 4})}, {{"pads", Ints{1, 2, 2, 3}}, {"mode", std::string("reflect")}}},
      {"take", {f32({5, 4}), i64({2, 3})}, {{"axis", int64_t{0}}}},
  };
}

// Random inputs: positive floats where the operator needs them, small integers otherwise.
NDArray input_for(const OpCase& c, size_t i, uint64_t seed) {
  const TensorType& t = c.inputs[i];
  bool positive = c.op == "log" || c.op == "sqrt" || (c.op == "batch_norm" && i == 4);
  if (t.dtype.is_int()) {
    double lo = c.op == "take" ? -5 : (c.op == "div" && i == 1 ? 1 : -20);
    return NDArray::random_uniform(t.shape, t.dtype, seed, lo, c.op == "take" ? 4 : 20);
  }
  return NDArray::random_uniform(t.shape, t.dtype, seed, positive ? 0.1 : -1.0, 1.0);
}

// The node run on `inputs` through the unfused executor.
std::vector<NDArray> run_node(const std::string& op, const std::vector<NDArray>& inputs, const Attributes& attrs) {
  Graph g;
  std::vector<ValueId> in;
  std::map<std::string, NDArray> feed;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string name = "in" + std::to_string(i);
    in.push_back(g.add_input(name, {inputs[i].shape(), to_data_type(inputs[i].dtype()), ""}));
    feed[name] = inputs[i];
  }
  for (ValueId out : g.add_node(op, in, attrs)) g.add_output(out);
  ops::UnfusedExecutor exec(g);
  return exec.run(feed);
}

std::vector<float> floats(const NDArray& a) {
  std::vector<float> v(a.numel());
  for (int64_t i = 0; i < a.numel(); ++i) v[i] = static_cast<float>(a.get_double(i));
  return v;
}

double max_magnitude(const NDArray& a) {
  double m = 0;
  for (int64_t i = 0; i < a.numel(); ++i) m = std::max(m, std::abs(a.get_double(i)));
  return m;
}

}  // namespace

TEST_CASE("graph operators: compiled with their default schedules, they compute their expressions", "[graph][ops]") {
  std::set<std::string> covered;
  for (const OpCase& c : cases()) {
    INFO(c.op << " " << c.attrs.str());
    covered.insert(c.op);
    std::vector<NDArray> inputs;
    for (size_t i = 0; i < c.inputs.size(); ++i) inputs.push_back(input_for(c, i, 17 + i));
    std::vector<NDArray> compiled = run_node(c.op, inputs, c.attrs);
    OpExpression e = op_expression(c.op, c.inputs, c.attrs);
    TensorValues values;
    for (size_t i = 0; i < inputs.size(); ++i) values[e.inputs[i].get()] = &inputs[i];
    std::vector<NDArray> expected = evaluate(e.outputs, values);
    REQUIRE(compiled.size() == expected.size());
    // 1e-5 of the output's magnitude: F(4×4, 3×3)'s transforms scale by up to 8, so the compiled
    // order of additions differs from the interpreter's by more than 1e-5 on outputs near 100.
    for (size_t i = 0; i < expected.size(); ++i)
      CHECK(max_abs_diff(compiled[i], expected[i]) <= 1e-5 * std::max(1.0, max_magnitude(expected[i])));
  }
  for (const std::string& name : Registry<GraphOp>::instance().names()) {
    INFO("graph operator without a case here: " << name);
    CHECK(covered.count(name));
  }
}

TEST_CASE("graph operators: grouped, dilated conv2d_transpose scatters as ONNX defines it", "[graph][ops]") {
  const int64_t N = 1, C = 4, H = 3, W = 4, G = 2, OG = 3, K = 3, S = 2, D = 2, PT = 1, PL = 2, PB = 0, PR = 1;
  NDArray x = NDArray::random_uniform({N, C, H, W}, DataType::float32(), 3);
  NDArray w = NDArray::random_uniform({C, OG, K, K}, DataType::float32(), 4);
  int64_t oh = S * (H - 1) + D * (K - 1) + 1 - PT - PB, ow = S * (W - 1) + D * (K - 1) + 1 - PL - PR;
  std::vector<float> expected(G * OG * oh * ow, 0.0f);
  std::vector<float> xs = floats(x), ws = floats(w);
  for (int64_t c = 0; c < C; ++c)
    for (int64_t o = 0; o < OG; ++o)
      for (int64_t iy = 0; iy < H; ++iy)
        for (int64_t ix = 0; ix < W; ++ix)
          for (int64_t ky = 0; ky < K; ++ky)
            for (int64_t kx = 0; kx < K; ++kx) {
              int64_t y = iy * S + ky * D - PT, xx = ix * S + kx * D - PL;
              if (y < 0 || y >= oh || xx < 0 || xx >= ow) continue;
              int64_t oc = c / (C / G) * OG + o;
              expected[(oc * oh + y) * ow + xx] += xs[(c * H + iy) * W + ix] * ws[((c * OG + o) * K + ky) * K + kx];
            }
  Attributes attrs{{"groups", G}, {"strides", Ints{S, S}}, {"dilations", Ints{D, D}}, {"pads", Ints{PT, PL, PB, PR}}};
  NDArray y = run_node("conv2d_transpose", {x, w}, attrs)[0];
  REQUIRE(y.shape() == std::vector<int64_t>{N, G * OG, oh, ow});
  std::vector<float> got = floats(y);
  for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(expected[i]).margin(1e-5));
}

TEST_CASE("graph operators: interleave takes input (y mod sh)*sw + x mod sw at (y, x)", "[graph][ops]") {
  const int64_t SH = 2, SW = 3, C = 2, QH = 2, QW = 3;
  std::vector<NDArray> phases;
  for (uint64_t p = 0; p < SH * SW; ++p)
    phases.push_back(NDArray::random_uniform({1, C, QH, QW}, DataType::float32(), p));
  NDArray y = run_node("interleave", phases, {{"strides", Ints{SH, SW}}})[0];
  REQUIRE(y.shape() == std::vector<int64_t>{1, C, QH * SH, QW * SW});
  std::vector<float> got = floats(y);
  for (int64_t c = 0; c < C; ++c)
    for (int64_t r = 0; r < QH * SH; ++r)
      for (int64_t x = 0; x < QW * SW; ++x) {
        const NDArray& from = phases[(r % SH) * SW + x % SW];
        CHECK(got[(c * QH * SH + r) * QW * SW + x] == from.data_as<float>()[(c * QH + r / SH) * QW + x / SW]);
      }
  test::require_user_error([&] { run_node("interleave", {phases[0], phases[1]}, {{"strides", Ints{2, 2}}}); },
                           {"4 inputs", "there are 2"});
}

TEST_CASE("graph operators: depthwise conv2d with a channel multiplier", "[graph][ops]") {
  NDArray x = NDArray::random_uniform({1, 3, 5, 5}, DataType::float32(), 5);
  NDArray w = NDArray::random_uniform({6, 1, 3, 3}, DataType::float32(), 6);  // multiplier 2
  NDArray y = run_node("conv2d", {x, w}, {{"groups", int64_t{3}}, {"pads", Ints{1, 1, 1, 1}}})[0];
  std::vector<float> xs = floats(x), ws = floats(w), got = floats(y);
  for (int64_t oc = 0; oc < 6; ++oc)
    for (int64_t i = 0; i < 5; ++i)
      for (int64_t j = 0; j < 5; ++j) {
        double sum = 0;
        for (int64_t ky = 0; ky < 3; ++ky)
          for (int64_t kx = 0; kx < 3; ++kx) {
            int64_t yy = i + ky - 1, xx = j + kx - 1;
            if (yy >= 0 && yy < 5 && xx >= 0 && xx < 5)
              sum += xs[(oc / 2 * 5 + yy) * 5 + xx] * ws[(oc * 3 + ky) * 3 + kx];
          }
        CHECK(got[(oc * 5 + i) * 5 + j] == Approx(sum).margin(1e-5));
      }
}

TEST_CASE("graph operators: average pooling counts like PyTorch with ceil_mode and padding", "[graph][ops]") {
  const int64_t H = 7, K = 3, S = 2, PT = 1, PB = 0;
  NDArray x = NDArray::random_uniform({1, 1, H, H}, DataType::float32(), 7);
  std::vector<float> xs = floats(x);
  for (int64_t include_pad = 0; include_pad < 2; ++include_pad) {
    Attributes attrs{{"kernel_shape", Ints{K, K}},
                     {"strides", Ints{S, S}},
                     {"pads", Ints{PT, PT, PB, PB}},
                     {"ceil_mode", int64_t{1}},
                     {"count_include_pad", include_pad}};
    NDArray y = run_node("avg_pool2d", {x}, attrs)[0];
    int64_t out = (H + PT + PB - K + S - 1) / S + 1;  // ceil; the last window starts inside the input
    REQUIRE(y.shape() == std::vector<int64_t>{1, 1, out, out});
    std::vector<float> got = floats(y);
    for (int64_t i = 0; i < out; ++i)
      for (int64_t j = 0; j < out; ++j) {
        int64_t y0 = i * S - PT, x0 = j * S - PT;
        double sum = 0;
        int64_t inside = 0;
        for (int64_t a = y0; a < y0 + K; ++a)
          for (int64_t b = x0; b < x0 + K; ++b)
            if (a >= 0 && a < H && b >= 0 && b < H) sum += xs[a * H + b], ++inside;
        auto clipped = [&](int64_t start) { return std::min(start + K, H + PB) - start; };  // PyTorch's divisor
        double count = include_pad ? double(clipped(y0) * clipped(x0)) : double(inside);
        INFO("count_include_pad " << include_pad << " at " << i << "," << j);
        CHECK(got[i * out + j] == Approx(sum / count).margin(1e-6));
      }
  }
}

TEST_CASE("graph operators: integer division truncates toward zero, as ONNX", "[graph][ops]") {
  NDArray a = NDArray::from_vector<int64_t>({6}, {7, -7, 7, -7, 6, -6});
  NDArray b = NDArray::from_vector<int64_t>({6}, {2, 2, -2, -2, 3, 3});
  NDArray q = run_node("div", {a, b}, {})[0];
  std::vector<int64_t> expected{3, -3, -3, 3, 2, -2};
  for (size_t i = 0; i < expected.size(); ++i) CHECK(q.data_as<int64_t>()[i] == expected[i]);
}
