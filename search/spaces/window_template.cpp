// The conv2d / depthwise NCHWc schedule templates (search/spaces/window_template.h).
#include "search/spaces/window_template.h"

#include <algorithm>

#include "ir/expr.h"
#include "ops/conv2d_nchwc.h"
#include "ops/cpu_tiles.h"
#include "ops/depthwise_conv2d.h"
#include "ops/op_schedule.h"
#include "ops/window_schedule.h"
#include "ops/workload_ops.h"
#include "search/spaces/tile_choices.h"
#include "support/error.h"

namespace tessel::search {

namespace {

constexpr int64_t kMaxTileRows = 4;

// What distinguishes the two operators: their instance, the reduction axes (by index into the
// accumulator's reduction axes), and their ops/ schedule and fallback configuration.
struct WindowOperator {
  ops::OpInstance instance;
  std::vector<std::vector<int>> reduce_orders;  // the first is the ops/ default
  int kernel_h_axis, kernel_w_axis;             // reduction-axis indices of the kernel window
  bool parallel_order_knob;                     // whether the parallel loop's order is a knob
  // Output channel blocks a tile may span (1: no knob), from the target as the widest column tile
  // is, not from the fallback's choice, so the space does not change with the default.
  int64_t channel_blocks;
  // Reduction chunks a 1x1 convolution may run in (0: no knob), from the target as channel_blocks;
  // offered where the default chunks, so the tuner may also run the whole reduction per tile.
  int64_t reduce_chunk;
  // Lanes of a channel block of several vectors a tile may cover instead of the whole block (0: no
  // knob; ops::WindowConfig::block_lanes).
  int64_t block_lanes;
  Schedule (*schedule)(const Tensor& output, const ops::WindowConfig& config);
  ops::WindowConfig fallback;                   // the target's default configuration
};

// The extents of the reduction axes of a window operator's output, as its knobs index them.
std::vector<int64_t> reduction_extents(const Tensor& output) {
  std::vector<int64_t> extents;
  for (const IterVar& axis : output.get()->reduce_axis) {
    const int64_t* extent = as_const_int(axis.get()->dom.extent);
    TESSEL_CHECK(extent, "reduction axis '", axis.name(), "' of '", output.name(), "' has no constant extent");
    extents.push_back(*extent);
  }
  return extents;
}

// The reduction orders, those that differ only in where axes of one iteration go (a 1x1 kernel's
// kh and kw) folded into one: they make the same program.
Knob reduce_order_knob(const std::vector<std::vector<int>>& orders, const std::vector<int64_t>& extents) {
  auto loops = [&](const nlohmann::json& order) {
    std::vector<int> kept;
    for (int axis : order.get<std::vector<int>>())
      if (extents.at(axis) > 1) kept.push_back(axis);
    return kept;
  };
  return fold_equivalent_choices(reorder_knob("reduce_order", orders),
                                 [&](const nlohmann::json& a, const nlohmann::json& b) { return loops(a) == loops(b); });
}

// Whether to unroll a reduction axis of `extent` iterations: one choice when there is one.
Knob unroll_knob(std::string name, std::vector<ForKind> choices, int64_t extent) {
  Knob knob = annotate_knob(std::move(name), std::move(choices));
  if (extent > 1) return knob;
  return fold_equivalent_choices(std::move(knob), [](const nlohmann::json&, const nlohmann::json&) { return true; });
}

bool unrolls(const ops::WindowConfig& config, int axis) {
  return std::find(config.unrolled.begin(), config.unrolled.end(), axis) != config.unrolled.end();
}

class WindowTemplate : public AnchorTemplate {
 public:
  WindowTemplate(WindowOperator op, const Target& target) : op_(std::move(op)), target_(target) {
    const auto& shape = op_.instance.output.shape();
    const CpuDescription& cpu = target.cpu();
    const ops::WindowConfig& f = op_.fallback;
    space_.add(tile_split_knob("tile_oh", shape[2], 2, kMaxTileRows, cpu, tile_choice(shape[2], f.rows)));
    space_.add(tile_split_knob("tile_ow", shape[3], 2, widest_column_tile(op_.instance.output, cpu), cpu,
                               tile_choice(shape[3], f.columns)));
    // Knobs that cannot change a program of this workload have one choice (a 1x1 kernel's).
    std::vector<int64_t> extents = reduction_extents(op_.instance.output);
    space_.add(reduce_order_knob(op_.reduce_orders, extents));
    space_.add(unroll_knob("unroll_kw", {ForKind::Unrolled, ForKind::Serial}, extents.at(op_.kernel_w_axis)));
    space_.add(unroll_knob("unroll_kh", {ForKind::Serial, ForKind::Unrolled}, extents.at(op_.kernel_h_axis)));
    if (op_.parallel_order_knob) space_.add(categorical_knob("parallel", {"channels", "rows"}));
    // Last, one block (the schedule before the knob) first: older records keep their points.
    if (op_.channel_blocks > 1) space_.add(categorical_knob("channel_blocks", {1, op_.channel_blocks}));
    if (op_.reduce_chunk > 0) space_.add(categorical_knob("reduce_chunk", {0, op_.reduce_chunk}));
    if (op_.block_lanes > 0) space_.add(categorical_knob("block_lanes", {shape[4], op_.block_lanes}));
  }

  const ConfigSpace& space() const override { return space_; }

  Config default_config() const override {
    const auto& shape = op_.instance.output.shape();
    const ops::WindowConfig& f = op_.fallback;
    nlohmann::json knobs = {{"tile_oh", tile_choice(shape[2], f.rows)},
                            {"tile_ow", tile_choice(shape[3], f.columns)},
                            {"reduce_order", f.reduce_order},
                            {"unroll_kw", unrolls(f, op_.kernel_w_axis) ? "unroll" : "none"},
                            {"unroll_kh", unrolls(f, op_.kernel_h_axis) ? "unroll" : "none"}};
    if (op_.parallel_order_knob) knobs["parallel"] = f.rows_outer ? "rows" : "channels";
    if (op_.channel_blocks > 1) knobs["channel_blocks"] = f.channel_blocks;
    if (op_.reduce_chunk > 0) knobs["reduce_chunk"] = f.reduce_chunk;
    if (op_.block_lanes > 0) knobs["block_lanes"] = f.block_lanes > 0 ? f.block_lanes : shape[4];
    return space_.from_json(knobs);
  }

  Program default_program() const override {
    const ops::OpInstance& op = op_.instance;
    return {op.inputs, op.output, ops::default_schedule(op.output, target_)};
  }

  Program instantiate(const Config& config) const override {
    const ops::OpInstance& op = op_.instance;
    return {op.inputs, op.output, schedule_output(config, op.output)};
  }

  Schedule schedule_output(const Config& config, const Tensor& output) const override {
    return op_.schedule(output, window_config(config));
  }

  std::string anchor_mismatch(const Tensor& anchor) const override {
    return stage_mismatch(anchor, op_.instance.output, {op_.instance.output->tag});
  }

  std::vector<std::string> thread_split_knobs() const override {
    if (op_.parallel_order_knob) return {"parallel"};
    return {};
  }

 private:
  ops::WindowConfig window_config(const Config& config) const {
    ops::WindowConfig window = op_.fallback;
    window.rows = config.split("tile_oh")[1];
    window.columns = config.split("tile_ow")[1];
    window.reduce_order = config.order("reduce_order");
    window.unrolled.clear();
    if (config.annotation("unroll_kw") == ForKind::Unrolled) window.unrolled.push_back(op_.kernel_w_axis);
    if (config.annotation("unroll_kh") == ForKind::Unrolled) window.unrolled.push_back(op_.kernel_h_axis);
    if (op_.parallel_order_knob) window.rows_outer = config.get_string("parallel") == "rows";
    if (op_.channel_blocks > 1) window.channel_blocks = config.get_int("channel_blocks");
    if (op_.reduce_chunk > 0) window.reduce_chunk = config.get_int("reduce_chunk");
    if (op_.block_lanes > 0) window.block_lanes = config.get_int("block_lanes");
    return window;
  }

  WindowOperator op_;
  Target target_;
  ConfigSpace space_;
};

}  // namespace

// The AVX2 depthwise default went from 14 columns to 8; its space still offers 14.
int64_t widest_column_tile(const Tensor& output, const CpuDescription& cpu) {
  int64_t block = output.shape()[4], lanes = ops::float_lanes(cpu);
  return max_register_tile(cpu, ops::kWindowAccumulatorCap * lanes / std::max(block, lanes));
}

std::shared_ptr<const ScheduleTemplate> make_conv2d_template(const Conv2dShape& s, const Target& target) {
  ops::OpInstance op = ops::conv2d_instance(s, target);
  ops::WindowConfig fallback = ops::conv2d_fallback_config(op.output, target);
  // reduction axes: icc 0, icb 1, kh 2, kw 3
  std::vector<std::vector<int>> orders = {{0, 2, 1, 3}, {0, 2, 3, 1}, {0, 1, 2, 3}, {2, 0, 1, 3}, {2, 3, 0, 1}};
  // The parallel order became a choice with the 16-register schedules (ops::rows_outer_pays): the
  // last knob, "channels" (the order before) first, so older records still apply (config_space.h).
  // The 32-register spaces stay those the recorded sets (datasets/recorded) were measured over.
  bool parallel_order_knob = !ops::unrolled_window_fits(target.cpu());
  int64_t channel_blocks = ops::conv2d_tile_channel_blocks(op.output, target.cpu());
  // Chunks last, none (the schedule before the knob) first: older records keep their points.
  int64_t reduce_chunk = ops::conv2d_reduce_chunk(op.output, channel_blocks, target.cpu());
  return std::make_shared<WindowTemplate>(WindowOperator{op, orders, 2, 3, parallel_order_knob, channel_blocks,
                                                         reduce_chunk, 0, ops::schedule_conv2d_nchwc, fallback},
                                          target);
}

std::shared_ptr<const ScheduleTemplate> make_depthwise_template(const DepthwiseShape& s, const Target& target) {
  ops::OpInstance op = ops::depthwise_instance(s, target);
  ops::WindowConfig fallback = ops::depthwise_fallback_config(op.output, target);
  // reduction axes: ry 0, rx 1. A block of several vectors may run one at a time (the knob added
  // last, the whole block first: older records keep their points).
  int64_t block_lanes = ops::depthwise_vector_lanes(op.output, target.cpu());
  return std::make_shared<WindowTemplate>(
      WindowOperator{op, {{0, 1}, {1, 0}}, 0, 1, false, 1, 0, block_lanes, ops::schedule_depthwise_conv2d, fallback},
      target);
}

}  // namespace tessel::search
