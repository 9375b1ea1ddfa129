// Every operator compiled with its default CPU schedule by the llvm_cpu back end, for every CPU
// target this machine runs (the schedules and blocked layouts derive from the target), on small
// and odd shapes, against the reference interpreter; and the schedule plugins' registration and
// errors.
#include <cmath>
#include <cstring>

#include "ir/printer.h"
#include "ir/visitor.h"
#include "ops/build.h"
#include "ops/conv2d_nchw.h"
#include "ops/conv2d_nchwc.h"
#include "ops/depthwise_conv2d.h"
#include "ops/elementwise.h"
#include "ops/gemm.h"
#include "ops/layout_transform.h"
#include "ops/op_schedule.h"
#include "ops/pad.h"
#include "ops/pool.h"
#include "passes/lower/lower.h"
#include "runtime/thread_pool.h"
#include "support/registry.h"
#include "tests/ops/ops_test_util.h"

using namespace tessel;
using namespace tessel::ops;

namespace {

// Compiles `output` with `schedule` for `target`, runs it on random inputs with `threads`
// threads, and compares with the interpreter. The output starts as NaN, so an element never
// written fails.
void check_scheduled(const Schedule& schedule, const Tensor& output, const std::vector<Tensor>& inputs,
                     const Target& target, const std::string& what, int threads = 2) {
  set_num_threads(threads);
  test::Inputs values;
  std::vector<NDArray> args;
  for (size_t i = 0; i < inputs.size(); ++i) {
    values.emplace_back(inputs[i], test::random_array(inputs[i].shape(), 20 + i));
    args.push_back(values.back().second);
  }
  NDArray expected = evaluate(output, values);
  NDArray result = NDArray::empty(output.shape(), output.dtype());
  std::memset(result.data(), 0xff, result.nbytes());
  args.push_back(result);
  std::vector<Tensor> kernel_args = inputs;
  kernel_args.push_back(output);
  std::vector<NDArray*> arrays;
  for (NDArray& a : args) arrays.push_back(&a);
  build(schedule, kernel_args, output.name(), target)->run(arrays);
  INFO("operator " << output.name() << " " << shape_str(output.shape()) << " " << what << " for " << target.key()
                   << " on " << threads << " threads");
  CHECK(max_abs_diff(expected, result) <= 1e-4);
}

// check_scheduled with the default schedule of `output` for `target` (and `schedule_params`).
void check_compiled(const Tensor& output, const std::vector<Tensor>& inputs, const Target& target = Target::host(),
                    const nlohmann::json& schedule_params = nullptr) {
  check_scheduled(default_schedule(output, target, schedule_params), output, inputs, target, schedule_params.dump());
}

// The extent of the first parallel loop of `program`, or -1 if it has none.
int64_t parallel_extent(const std::string& program) {
  size_t at = program.find("parallel (");
  if (at == std::string::npos) return -1;
  size_t end = program.find(")", at), comma = program.rfind(", ", end);
  return std::stoll(program.substr(comma + 2, end - comma - 2));
}

Tensor input(std::vector<int64_t> shape, const std::string& name) {
  return placeholder(std::move(shape), DataType::float32(), name);
}

struct Conv {
  std::vector<int64_t> data, kernel;
  Conv2dParams p;
};
const Conv kConvs[] = {
    {{1, 3, 7, 9}, {4, 3, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 1}},
    {{2, 4, 9, 8}, {8, 4, 3, 3}, {{2, 2}, {1, 1}, {1, 1}, 1}},
    {{1, 4, 10, 11}, {4, 4, 3, 3}, {{1, 1}, {2, 2}, {2, 2}, 1}},
    {{1, 8, 6, 6}, {12, 4, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 2}},
    {{1, 6, 5, 7}, {10, 6, 1, 1}, {{1, 2}, {0, 0}, {1, 1}, 1}},
    {{1, 3, 13, 13}, {16, 3, 7, 7}, {{2, 2}, {3, 3}, {1, 1}, 1}},
    {{1, 32, 6, 6}, {32, 32, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 1}},
};

}  // namespace

TEST_CASE("compiled gemm and dense match the interpreter", "[ops][compiled]") {
  struct Case {
    int64_t m, n, k, bn;
  };
  for (const Target& target : test::runnable_cpu_targets())
    for (Case c : {Case{8, 32, 16, 0}, Case{5, 37, 11, 16}, Case{13, 64, 9, 0}, Case{16, 48, 33, 32}}) {
      Tensor a = input({c.m, c.k}, "A"), b = input({c.k, c.n}, "B"), w = input({c.n, c.k}, "W");
      int64_t bn = c.bn > 0 ? c.bn : gemm_panel_width(c.n, target);
      check_compiled(gemm(a, b, bn), {a, b}, target);
      check_compiled(dense(a, w, bn), {a, w}, target);
    }
}

// A store to a local buffer of fewer lanes than the panel: a partial panel's product run lane by lane.
class NarrowLocalStores : public IRVisitor {
 public:
  explicit NarrowLocalStores(int lanes) : lanes_(lanes) {}
  int count = 0;

 protected:
  void visit_node(const Store* op) override {
    if (op->buffer.scope() == MemoryScope::local() && op->value.type().lanes < lanes_) ++count;
    IRVisitor::visit_node(op);
  }

 private:
  int lanes_;
};

TEST_CASE("a dense layer's partial last panel multiplies in whole vectors and matches the interpreter",
          "[ops][compiled]") {
  // A classifier at batch 1 (1000 classes on 64-float panels: 15 whole panels and one of 40): the
  // zero-padded panels let the last one run the same vector code as the others; only its store
  // to the output is cut at N.
  for (const Target& target : test::runnable_cpu_targets()) {
    int64_t n = 100, k = 24, bn = 64;
    Tensor x = input({1, k}, "X"), panels = input({(n + bn - 1) / bn, k, bn}, "P");
    Tensor y = dense_packed(x, panels, n);
    check_compiled(y, {x, panels}, target);
    LoweredFunc f = lower(default_schedule(y, target), {x, panels, y}, "dense", target);
    NarrowLocalStores narrow(static_cast<int>(bn));
    narrow.visit(f.body);
    INFO(to_string(f));
    CHECK(narrow.count == 0);
  }
}

TEST_CASE("compute_past_edge takes a data-parallel root axis only", "[ops][schedule]") {
  Tensor a = input({4, 8}, "A"), w = input({10, 8}, "W");
  Tensor y = dense(a, w, 8);
  Schedule s = create_schedule({y});
  auto [outer, inner] = s[y].split(s[y].axis(1), 4);
  CHECK_THROWS_WITH(s[y].compute_past_edge(outer), Catch::Contains("not a data-parallel root axis"));
  CHECK_THROWS_WITH(s[y].compute_past_edge(s[y]->op->reduce_axis[0]), Catch::Contains("stage.axis(i)"));
  CHECK_NOTHROW(s[y].compute_past_edge(s[y].axis(1)));
}

TEST_CASE("compiled conv2d in NCHW and NCHWc matches the interpreter", "[ops][compiled]") {
  for (const Target& target : test::runnable_cpu_targets())
    for (const Conv& c : kConvs) {
      Tensor x = input(c.data, "x"), w = input(c.kernel, "w");
      check_compiled(conv2d_nchw(x, w, c.p), {x, w}, target);
      Conv2dBlocks b = choose_conv2d_blocks(c.data[1], c.kernel[0], c.p.groups, target);
      Tensor xb = input(nchw_to_nchwc(x, b.ib).shape(), "xb"), wb = input(oihw_to_oihwio(w, b.ib, b.ob).shape(), "wb");
      check_compiled(conv2d_nchwc(xb, wb, c.p), {xb, wb}, target);
    }
}

TEST_CASE("conv2d register tiles spanning output channel blocks match the interpreter", "[ops][compiled]") {
  // 24 and 2 x 24 output channels: on AVX2 the default tile spans 3 blocks of 8 (and partial column
  // tiles: 7 = 3 + 3 + 1); the parameter forces the grouping on any target.
  const Conv convs[] = {{{1, 16, 5, 7}, {24, 16, 1, 1}, {}},
                        {{1, 8, 6, 7}, {24, 8, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 1}},
                        {{1, 16, 5, 5}, {48, 8, 3, 3}, {{2, 2}, {1, 1}, {1, 1}, 2}}};
  for (const Target& target : test::runnable_cpu_targets())
    for (const Conv& c : convs) {
      Tensor x = input(c.data, "x"), w = input(c.kernel, "w");
      int64_t ib = choose_conv2d_blocks(c.data[1], c.kernel[0], c.p.groups, target).ib;
      Tensor xb = input(nchw_to_nchwc(x, ib).shape(), "xb"), wb = input(oihw_to_oihwio(w, ib, 8).shape(), "wb");
      Tensor y = conv2d_nchwc(xb, wb, c.p);
      check_compiled(y, {xb, wb}, target);
      check_compiled(y, {xb, wb}, target, {{"channel_blocks", 3}});
    }
  Tensor xb = input({1, 2, 5, 5, 8}, "xb"), wb = input({4, 2, 1, 1, 8, 8}, "wb");
  CHECK_THROWS_WITH(default_schedule(conv2d_nchwc(xb, wb, {}), Target::host(), {{"channel_blocks", 3}}),
                    Catch::Contains("must divide the output's 4 channel blocks"));
}

TEST_CASE("conv2d in reduction chunks matches the interpreter", "[ops][compiled]") {
  // 1x1 layers: chunks dividing the input blocks and not (a partial last chunk), a batch of two,
  // tiles spanning three output blocks and several rows; a padded 3x3 layer (its pad at the root).
  struct ChunkCase {
    Conv conv;
    nlohmann::json params;
  };
  const ChunkCase cases[] = {{{{1, 64, 5, 7}, {32, 64, 1, 1}, {}}, {{"reduce_chunk", 2}}},
                             {{{2, 40, 3, 6}, {16, 40, 1, 1}, {}}, {{"reduce_chunk", 3}}},
                             {{{1, 32, 4, 5}, {24, 32, 1, 1}, {}}, {{"reduce_chunk", 1}, {"channel_blocks", 3}}},
                             {{{1, 16, 6, 6}, {16, 16, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 1}}, {{"reduce_chunk", 1}}}};
  for (const Target& target : test::runnable_cpu_targets())
    for (const ChunkCase& c : cases) {
      Conv2dBlocks b = choose_conv2d_blocks(c.conv.data[1], c.conv.kernel[0], c.conv.p.groups, target);
      int64_t ob = c.params.contains("channel_blocks") ? 8 : b.ob;
      Tensor x = input(c.conv.data, "x"), w = input(c.conv.kernel, "w");
      Tensor xb = input(nchw_to_nchwc(x, b.ib).shape(), "xb"), wb = input(oihw_to_oihwio(w, b.ib, ob).shape(), "wb");
      check_compiled(conv2d_nchwc(xb, wb, c.conv.p), {xb, wb}, target, c.params);
    }
  Tensor xb = input({1, 2, 5, 5, 8}, "xb"), wb = input({4, 2, 1, 1, 8, 8}, "wb");
  CHECK_THROWS_WITH(default_schedule(conv2d_nchwc(xb, wb, {}), Target::host(), {{"reduce_chunk", -2}}),
                    Catch::Contains("reduce_chunk"));
}

TEST_CASE("compiled depthwise conv2d matches the interpreter", "[ops][compiled]") {
  for (const Target& target : test::runnable_cpu_targets())
    for (const Conv& c : kConvs) {
      int64_t channels = c.data[1];
      Tensor x = input(c.data, "x"), w = input({channels, 1, c.kernel[2], c.kernel[3]}, "w");
      check_compiled(depthwise_conv2d_nchw(x, w, c.p), {x, w}, target);
      int64_t block = choose_depthwise_block(channels, target);
      Tensor xb = input(nchw_to_nchwc(x, block).shape(), "xb"), wb = input(oihw_to_oihwio(w, 1, block).shape(), "wb");
      check_compiled(depthwise_conv2d_nchwc(xb, wb, c.p), {xb, wb}, target);
    }
}

TEST_CASE("a depthwise tile over a block of two AVX2 vectors, one vector at a time, computes the convolution",
          "[ops][compiled]") {
  Target avx2 = Target::parse("llvm_cpu -isa=avx2");
  if (!avx2.cannot_run_reason().empty()) return;
  for (const Conv2dParams& p : {Conv2dParams{{1, 1}, {1, 1}, {1, 1}, 1}, Conv2dParams{{2, 2}, {1, 1}, {1, 1}, 1}})
    for (int threads : {1, 2}) {
      Tensor xb = input({1, 2, 14, 14, 16}, "xb"), wb = input({2, 1, 3, 3, 1, 16}, "wb");
      Tensor out = depthwise_conv2d_nchwc(xb, wb, p);
      Target target = avx2.with_threads(threads);
      REQUIRE(depthwise_fallback_config(out, target).block_lanes == 8);
      check_compiled(out, {xb, wb}, target);
    }
}

TEST_CASE("a narrow k x k conv2d tile of two AVX2 rows, the last row tile and column tile partial, computes the "
          "convolution", "[ops][compiled]") {
  Target avx2 = Target::parse("llvm_cpu -isa=avx2");
  if (!avx2.cannot_run_reason().empty()) return;
  for (const Conv2dParams& p : {Conv2dParams{{1, 1}, {1, 1}, {1, 1}, 1}, Conv2dParams{{2, 2}, {1, 1}, {1, 1}, 1}})
    for (int threads : {1, 2}) {
      // 7 output rows and columns: row tiles 2 + 2 + 2 + 1, column tiles 3 + 3 + 1
      int64_t size = p.stride[0] == 1 ? 7 : 14;
      Tensor xb = input({1, 2, size, size, 8}, "xb"), kb = input({2, 2, 3, 3, 8, 16}, "kb");
      Tensor out = conv2d_nchwc(xb, kb, p);
      Target target = avx2.with_threads(threads);
      WindowConfig config = conv2d_fallback_config(out, target);
      REQUIRE(config.rows == 2);
      REQUIRE(config.columns == 3);
      check_compiled(out, {xb, kb}, target);
    }
}

TEST_CASE("padding computed at the root, per output row or inline gives the same result", "[ops][compiled]") {
  for (const Conv& c : {kConvs[0], kConvs[1]}) {
    Tensor xb = input({1, 1, c.data[2], c.data[3], 16}, "xb");
    Tensor wb = input({1, 1, c.kernel[2], c.kernel[3], 1, 16}, "wb");
    for (const char* where : {"root", "row", "inline"})
      check_compiled(depthwise_conv2d_nchwc(xb, wb, c.p), {xb, wb}, Target::host(), {{"pad", where}});
    Tensor kb = input({2, 1, c.kernel[2], c.kernel[3], 16, 16}, "kb");
    check_compiled(conv2d_nchwc(xb, kb, c.p), {xb, kb}, Target::host(), {{"pad_per_row", true}});
  }
}

TEST_CASE("with several threads each pads the input of its share, and the result is the same", "[ops][compiled]") {
  Tensor xb = input({1, 2, 6, 7, 16}, "xb");
  Tensor kb = input({2, 2, 3, 3, 16, 16}, "kb");
  Tensor out = conv2d_nchwc(xb, kb, {{1, 1}, {1, 1}, {1, 1}, 1});  // 288 multiply-adds per input element
  for (int threads : {1, 2, 3}) {
    Target target = Target::host().with_threads(threads);
    check_compiled(out, {xb, kb}, target);
    std::string program = to_string(lower(default_schedule(out, target), {xb, kb, out}, "conv"));
    INFO(threads << " threads:\n" << program);
    size_t pad = program.find("allocate conv2d_nchwc.pad"), parallel = program.find("parallel (");
    REQUIRE(pad != std::string::npos);
    REQUIRE(parallel != std::string::npos);
    CHECK((pad > parallel) == (threads > 1));  // inside the parallel loop: one copy per thread
    if (threads > 1) CHECK(program.find(", 0, " + std::to_string(threads) + ")", parallel) < program.find("\n", parallel));
  }
}

TEST_CASE("on several threads a depthwise convolution whose rows divide evenly gives each thread a share of them",
          "[ops][compiled]") {
  Tensor wb = input({3, 1, 3, 3, 1, 8}, "wb");
  Conv2dParams same{{1, 1}, {1, 1}, {1, 1}, 1};
  for (int64_t rows : {6, 7}) {
    Tensor xb = input({1, 3, rows, 5, 8}, "xb");
    Tensor out = depthwise_conv2d_nchwc(xb, wb, same);
    for (int threads : {1, 2, 3}) {
      Target target = Target::host().with_threads(threads);
      bool shares = threads > 1 && rows % threads == 0;
      CHECK(depthwise_row_shares_pay(out, target.cpu()) == shares);
      std::string program = to_string(lower(default_schedule(out, target), {xb, wb, out}, "depthwise"));
      INFO(rows << " rows, " << threads << " threads:\n" << program);
      if (shares) CHECK(parallel_extent(program) == threads);  // else channel blocks × row tiles
      if (!shares) CHECK(parallel_extent(program) == 3 * rows);
      check_scheduled(default_schedule(out, target), out, {xb, wb}, target, "default", threads);
    }
  }
}

TEST_CASE("a 1x1 conv2d in reduction chunks with rows outside splits them into a share per thread", "[ops][compiled]") {
  // 7 rows in shares of 4 and 3 (2 threads) and 3, 2, 2 (3 threads); 2-row tiles, one partial.
  Tensor xb = input({1, 4, 7, 5, 8}, "xb"), kb = input({3, 4, 1, 1, 8, 8}, "kb");
  Tensor out = conv2d_nchwc(xb, kb, {});
  for (int threads : {1, 2, 3}) {
    Target target = Target::host().with_threads(threads);
    WindowConfig config = conv2d_fallback_config(out, target);
    config.rows = 2;
    config.columns = 3;
    config.channel_blocks = 1;
    config.reduce_chunk = 3;
    config.rows_outer = true;
    std::string program = to_string(lower(schedule_conv2d_nchwc(out, config), {xb, kb, out}, "conv"));
    INFO(threads << " threads:\n" << program);
    CHECK(parallel_extent(program) == (threads > 1 ? threads * 3 : 3));  // shares × channel blocks, or the blocks
    check_scheduled(schedule_conv2d_nchwc(out, config), out, {xb, kb}, target, "chunks, rows outside", threads);
  }
}

TEST_CASE("compiled pooling matches the interpreter", "[ops][compiled]") {
  Tensor x = input({2, 3, 9, 7}, "x");
  Conv2dParams p{{2, 2}, {1, 1}, {1, 1}, 1};
  check_compiled(max_pool2d(x, {3, 3}, p), {x});
  check_compiled(avg_pool2d(x, {3, 3}, p), {x});
  check_compiled(avg_pool2d(x, {2, 2}, {{2, 2}}, true), {x});
}

TEST_CASE("compiled element-wise ops and layout transforms match the interpreter", "[ops][compiled]") {
  Tensor x = input({2, 12, 5, 3}, "x"), bias = input({12}, "bias");
  check_compiled(relu(bias_add(x, bias)), {x, bias});
  check_compiled(pad(x, {0, 0, 1, 2}, {0, 0, 2, 1}), {x});
  check_compiled(nchw_to_nchwc(x, 4), {x});
  Tensor xb = input({2, 3, 5, 3, 4}, "xb");
  check_compiled(nchwc_to_nchw(xb), {xb});
  Tensor w = input({8, 12, 3, 3}, "w");
  check_compiled(oihw_to_oihwio(w, 4, 8), {w});
}

TEST_CASE("every operator's default schedule is a registered plugin for CPUs", "[ops][plugins]") {
  std::vector<std::string> names = Registry<OpSchedule>::instance().names();
  for (const char* op : {"gemm", "dense", "conv2d_nchw", "conv2d_nchwc", "depthwise_conv2d_nchw",
                         "depthwise_conv2d_nchwc", "max_pool2d", "avg_pool2d", "injective"}) {
    std::string name = op_schedule_name(op, DeviceKind::CPU);
    CHECK(name == std::string(op) + "@cpu");
    CHECK(std::find(names.begin(), names.end(), name) != names.end());
  }
  Target host = Target::host();
  Tensor a = input({4, 4}, "A");
  Tensor odd = compute({4}, [&](Var i) { return a(i, i); }, "diag", "no_such_op");
  CHECK_THROWS_WITH(default_schedule(odd, host), Catch::Contains("no_such_op@cpu") && Catch::Contains("conv2d_nchwc@cpu"));
  CHECK_THROWS_AS(default_schedule(a, host), UserError);
}

TEST_CASE("schedules are found by tag and the target's device kind", "[ops][plugins]") {
  add_target_kind({"test_gpu_for_schedules", DeviceKind::GPU, "a GPU kind for this test", {}});
  Tensor a = input({8, 8}, "A"), b = input({8, 16}, "B");
  // No GPU gemm schedule is registered: the lookup names what it looked for.
  CHECK_THROWS_WITH(default_schedule(gemm(a, b, 16), Target::parse("test_gpu_for_schedules")),
                    Catch::Contains("gemm@gpu"));
}

TEST_CASE("schedule parameters reach the schedule", "[ops][plugins]") {
  Tensor a = input({12, 8}, "A"), b = input({8, 32}, "B");
  Tensor c = gemm(a, b);
  Schedule s = default_schedule(c, Target::host(), {{"rows", 3}});
  // the C tile's row loop is the register-tile height
  bool found = false;
  for (const IterVar& iv : s[c]->leaf_axes) found |= iv.name() == "i.inner" && is_const_int(iv->dom.extent, 3);
  CHECK(found);
  CHECK_THROWS_WITH(default_schedule(c, Target::host(), {{"no_such_knob", 1}}), Catch::Contains("rows"));
}

TEST_CASE("compiled 1x1 conv2d with rows stacked in the register tile matches the interpreter", "[ops][compiled]") {
  // On 32 registers the default stacks 2 rows (32-channel blocks) or 4 (16) of 7 columns: 7 rows
  // leave a partial row tile.
  const Conv convs[] = {{{1, 64, 7, 7}, {64, 64, 1, 1}, {}}, {{1, 32, 7, 7}, {16, 32, 1, 1}, {}}};
  for (const Target& target : test::runnable_cpu_targets())
    for (const Conv& c : convs) {
      Conv2dBlocks b = choose_conv2d_blocks(c.data[1], c.kernel[0], c.p.groups, target);
      Tensor xb = input(nchw_to_nchwc(input(c.data, "x"), b.ib).shape(), "xb");
      Tensor wb = input(oihw_to_oihwio(input(c.kernel, "w"), b.ib, b.ob).shape(), "wb");
      check_compiled(conv2d_nchwc(xb, wb, c.p), {xb, wb}, target);
    }
}

TEST_CASE("compiled layout transforms match the interpreter", "[ops][compiled]") {
  // Unblocking runs a block's channels inside column tiles: blocks of 3, 16 and 32, rows of 7 and
  // 20 columns (tiles of 10). Blocking 3 channels gathers 3-lane vectors lane by lane.
  for (const Target& target : test::runnable_cpu_targets()) {
    for (int64_t block : {3, 16, 32})
      for (int64_t width : {7, 20}) {
        Tensor xb = input({1, 2, 3, width, block}, "xb");
        check_compiled(nchwc_to_nchw(xb), {xb}, target);
      }
    Tensor x = input({1, 3, 5, 20}, "x");
    check_compiled(nchw_to_nchwc(x, 3), {x}, target);
  }
}
