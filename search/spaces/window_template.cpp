// The conv2d / depthwise NCHWc schedule templates (search/spaces/window_template.h).
#include "search/spaces/window_template.h"

#include <functional>

#include "ops/conv2d_nchwc.h"
#include "ops/depthwise_conv2d.h"
#include "ops/op_schedule.h"
#include "ops/window_schedule.h"

namespace tessel::search {

namespace {

constexpr int64_t kMaxTileColumns = 16;
constexpr int64_t kMaxTileRows = 4;

// What distinguishes the two operators: their blocked inputs, the computation, and the
// reduction axes (by index into the accumulator's reduction axes).
struct WindowOperator {
  std::vector<Tensor> inputs;
  Tensor output;
  std::vector<std::vector<int>> reduce_orders;  // the first is the ops/ default
  int kernel_h_axis, kernel_w_axis;             // reduction-axis indices of the kernel window
  int64_t default_columns;                      // the ops/ default register-tile width
  ops::PadPlacement pad;                        // where the ops/ default computes the padding
};

class WindowTemplate : public ScheduleTemplate {
 public:
  explicit WindowTemplate(WindowOperator op) : op_(std::move(op)) {
    const auto& shape = op_.output.shape();
    space_.add(split_knob("tile_oh", shape[2], 2, kMaxTileRows));
    space_.add(split_knob("tile_ow", shape[3], 2, kMaxTileColumns));
    space_.add(reorder_knob("reduce_order", op_.reduce_orders));
    space_.add(annotate_knob("unroll_kw", {ForKind::Unrolled, ForKind::Serial}));
    space_.add(annotate_knob("unroll_kh", {ForKind::Serial, ForKind::Unrolled}));
  }

  const ConfigSpace& space() const override { return space_; }

  Config default_config() const override {
    const auto& shape = op_.output.shape();
    int64_t columns = op_.default_columns;
    return space_.from_json({{"tile_oh", {shape[2], 1}},
                             {"tile_ow", {shape[3] / columns, columns}},
                             {"reduce_order", op_.reduce_orders.front()},
                             {"unroll_kw", "unroll"},
                             {"unroll_kh", "none"}});
  }

  Program default_program() const override {
    return {op_.inputs, op_.output, ops::default_schedule(op_.output)};
  }

  Program instantiate(const Config& config) const override {
    Schedule s = create_schedule({op_.output});
    Tensor acc = s.cache_write(op_.output);
    ops::schedule_pad(s, acc, op_.pad);
    int64_t rows = config.split("tile_oh")[1], columns = config.split("tile_ow")[1];
    IterVar at = schedule_output(s[op_.output], rows, columns);
    schedule_accumulator(s[acc], s[op_.output], at, rows, columns, config);
    return {op_.inputs, op_.output, s};
  }

 private:
  // Splits the output into tiles, channels × outer rows in parallel; returns the column-tile loop.
  static IterVar schedule_output(Stage c, int64_t rows, int64_t columns) {
    auto [col_outer, col_inner] = c.split(c.axis(3), columns);
    if (rows == 1) {
      c.parallel(c.fuse(c.axis(1), c.axis(2)));
    } else {
      auto [row_outer, row_inner] = c.split(c.axis(2), rows);
      c.parallel(c.fuse(c.axis(1), row_outer));
      c.reorder({col_outer, row_inner});
      c.unroll(row_inner);
    }
    c.unroll(col_inner);
    c.vectorize(c.axis(4));
    return col_outer;
  }

  void schedule_accumulator(Stage cc, const Stage& c, const IterVar& at, int64_t rows, int64_t columns,
                            const Config& config) const {
    cc.compute_at(c, at);
    std::vector<IterVar> order;
    for (int r : config.order("reduce_order")) order.push_back(cc.reduce_axis(r));
    if (rows > 1) {
      IterVar row_inner = cc.split(cc.axis(2), rows).second;
      cc.unroll(row_inner);
      order.push_back(row_inner);
    }
    IterVar col_inner = cc.split(cc.axis(3), columns).second;
    order.push_back(col_inner);
    order.push_back(cc.axis(4));
    cc.reorder(order);  // the reduction outside the register tile, the tile innermost
    if (config.annotation("unroll_kw") == ForKind::Unrolled) cc.unroll(cc.reduce_axis(op_.kernel_w_axis));
    if (config.annotation("unroll_kh") == ForKind::Unrolled) cc.unroll(cc.reduce_axis(op_.kernel_h_axis));
    cc.unroll(col_inner);
    cc.vectorize(cc.axis(4));
  }

  WindowOperator op_;
  ConfigSpace space_;
};

Tensor blocked_placeholder(std::vector<int64_t> shape, const char* name) {
  return placeholder(std::move(shape), DataType::float32(), name);
}

}  // namespace

std::shared_ptr<const ScheduleTemplate> make_conv2d_template(const Conv2dShape& s, const Target& target) {
  ops::Conv2dBlocks blocks = ops::choose_conv2d_blocks(s.c, s.oc, s.groups);
  Tensor data = blocked_placeholder({s.n, s.c / blocks.ib, s.h, s.w, blocks.ib}, "data");
  Tensor kernel = blocked_placeholder({s.oc / blocks.ob, s.c / s.groups / blocks.ib, s.kh, s.kw, blocks.ib, blocks.ob},
                                      "kernel");
  ops::Conv2dParams params{{s.stride, s.stride}, {s.pad, s.pad}, {s.dilation, s.dilation}, s.groups};
  Tensor out = ops::conv2d_nchwc(data, kernel, params);
  // reduction axes: icc 0, icb 1, kh 2, kw 3
  std::vector<std::vector<int>> orders = {{0, 2, 1, 3}, {0, 2, 3, 1}, {0, 1, 2, 3}, {2, 0, 1, 3}, {2, 3, 0, 1}};
  return std::make_shared<WindowTemplate>(
      WindowOperator{{data, kernel}, out, orders, 2, 3, ops::conv2d_default_columns(out),
                     ops::PadPlacement::Root});
}

std::shared_ptr<const ScheduleTemplate> make_depthwise_template(const DepthwiseShape& s, const Target& target) {
  int64_t block = ops::choose_depthwise_block(s.c);
  Tensor data = blocked_placeholder({s.n, s.c / block, s.h, s.w, block}, "data");
  Tensor kernel = blocked_placeholder({s.c / block, 1, s.k, s.k, 1, block}, "kernel");
  ops::Conv2dParams params{{s.stride, s.stride}, {s.pad, s.pad}, {1, 1}, 1};
  Tensor out = ops::depthwise_conv2d_nchwc(data, kernel, params);
  // reduction axes: ry 0, rx 1
  return std::make_shared<WindowTemplate>(
      WindowOperator{{data, kernel}, out, {{0, 1}, {1, 0}}, 0, 1, ops::pick_reg_n(out.shape()[3], 14),
                     ops::PadPlacement::Inline});
}

}  // namespace tessel::search
