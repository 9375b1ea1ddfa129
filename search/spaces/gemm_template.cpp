// The GEMM schedule template (search/spaces/gemm_template.h).
#include "search/spaces/gemm_template.h"

#include <tuple>

#include "ops/gemm.h"
#include "ops/op_schedule.h"
#include "ops/tiling.h"

namespace tessel::search {

namespace {

constexpr int64_t kMaxRegisterRows = 16;
constexpr int64_t kMaxUnrolledK = 16;
// The outer loops, in the positions the "order" knob permutes.
enum OuterLoop { kRowsOuter = 0, kRowsMiddle = 1, kPanels = 2 };

std::vector<nlohmann::json> panel_widths(int64_t n, int64_t default_width) {
  std::vector<nlohmann::json> widths;
  for (int64_t w : {8, 16, 32, 48, 64})
    if (n % w == 0 || w == default_width) widths.emplace_back(w);
  return widths;
}

class GemmTemplate : public ScheduleTemplate {
 public:
  explicit GemmTemplate(const GemmShape& shape)
      : shape_(shape),
        a_(placeholder({shape.m, shape.k}, DataType::float32(), "A")),
        b_(placeholder({shape.k, shape.n}, DataType::float32(), "B")) {
    default_panel_ = ops::first_divisor(shape.n, {32, 64, 16, 48, 8}, 16);
    space_.add(categorical_knob("panel", panel_widths(shape.n, default_panel_)));
    space_.add(split_knob("tile_m", shape.m, 3, kMaxRegisterRows));
    space_.add(split_knob("tile_k", shape.k, 2, kMaxUnrolledK));
    space_.add(reorder_knob("order", {{kPanels, kRowsOuter, kRowsMiddle},
                                      {kRowsOuter, kPanels, kRowsMiddle},
                                      {kRowsOuter, kRowsMiddle, kPanels}}));
    space_.add(categorical_knob("parallel", {"outer", "fuse2"}));
    space_.add(annotate_knob("unroll_k", {ForKind::Unrolled, ForKind::Serial}));
  }

  const ConfigSpace& space() const override { return space_; }

  Config default_config() const override {
    int64_t rows = ops::largest_divisor_at_most(shape_.m, 8);
    int64_t k_unroll = ops::largest_divisor_at_most(shape_.k, 4);
    return space_.from_json({{"panel", default_panel_},
                             {"tile_m", {shape_.m / rows, 1, rows}},
                             {"tile_k", {shape_.k / k_unroll, k_unroll}},
                             {"order", {kPanels, kRowsOuter, kRowsMiddle}},
                             {"parallel", "outer"},
                             {"unroll_k", "unroll"}});
  }

  Program default_program() const override {
    Tensor c = ops::gemm(a_, b_);
    return {{a_, b_}, c, ops::default_schedule(c)};
  }

  Program instantiate(const Config& config) const override {
    Tensor c = ops::gemm(a_, b_, config.get_int("panel"));
    Schedule s = create_schedule({c});
    Tensor acc = s.cache_write(c);
    IterVar innermost_outer = schedule_output(s[c], config);
    schedule_accumulator(s[acc], s[c], innermost_outer, config);
    Stage pack = s[ops::find_by_tag(c, "pack")];
    pack.parallel(pack.axis(0));
    pack.vectorize(pack.axis(2));
    return {{a_, b_}, c, s};
  }

 private:
  // Tiles the output into register tiles; returns the loop the accumulator is computed at. A
  // middle row factor of 1 makes no loop, so the default configuration is exactly ops' schedule.
  IterVar schedule_output(Stage c, const Config& config) const {
    std::vector<int64_t> m = config.split("tile_m");
    auto [rows_outer, rows_rest] = c.split(c.axis(0), m[1] * m[2]);
    IterVar rows_middle, rows_inner = rows_rest;
    if (m[1] > 1) std::tie(rows_middle, rows_inner) = c.split(rows_rest, m[2]);
    auto [panels, columns] = c.split(c.axis(1), config.get_int("panel"));
    std::vector<IterVar> outer = {rows_outer, rows_middle, panels}, order;
    for (int position : config.order("order"))
      if (outer[position].defined()) order.push_back(outer[position]);
    std::vector<IterVar> nest = order;
    nest.insert(nest.end(), {rows_inner, columns});
    c.reorder(nest);
    if (config.get_string("parallel") == "fuse2") {
      order[1] = c.fuse(order[0], order[1]);
      order.erase(order.begin());
    }
    c.parallel(order.front());
    c.unroll(rows_inner);
    c.vectorize(columns);
    return order.back();
  }

  void schedule_accumulator(Stage cc, const Stage& c, const IterVar& at, const Config& config) const {
    cc.compute_at(c, at);
    auto [ko, ki] = cc.split(cc.reduce_axis(0), config.split("tile_k")[1]);
    cc.reorder({ko, ki, cc.axis(0), cc.axis(1)});
    if (config.annotation("unroll_k") == ForKind::Unrolled) cc.unroll(ki);
    cc.unroll(cc.axis(0));
    cc.vectorize(cc.axis(1));
  }

  GemmShape shape_;
  Tensor a_, b_;
  int64_t default_panel_;
  ConfigSpace space_;
};

}  // namespace

std::shared_ptr<const ScheduleTemplate> make_gemm_template(const GemmShape& shape, const Target& target) {
  return std::make_shared<GemmTemplate>(shape);
}

}  // namespace tessel::search
