// The GEMM schedule template (search/spaces/gemm_template.h).
#include "search/spaces/gemm_template.h"

#include "ops/cpu_tiles.h"
#include "ops/gemm.h"
#include "ops/op_schedule.h"
#include "ops/workload_ops.h"
#include "search/spaces/tile_choices.h"

namespace tessel::search {

namespace {

constexpr int64_t kMaxUnrolledK = 16;

// Panel widths from half a vector to four vectors, those dividing N and the default.
std::vector<nlohmann::json> panel_widths(int64_t n, int64_t lanes, int64_t default_width) {
  std::vector<nlohmann::json> widths;
  for (int64_t w : {lanes / 2, lanes, 2 * lanes, 3 * lanes, 4 * lanes})
    if (w > 0 && (n % w == 0 || w == default_width)) widths.emplace_back(w);
  return widths;
}

class GemmTemplate : public AnchorTemplate {
 public:
  GemmTemplate(const GemmShape& shape, const Target& target)
      : shape_(shape), target_(target), default_(ops::gemm_instance(shape, target)) {
    const CpuDescription& cpu = target.cpu();
    int64_t default_panel = ops::gemm_panel_width(shape.n, target);
    space_.add(categorical_knob("panel", panel_widths(shape.n, ops::float_lanes(cpu), default_panel)));
    ops::GemmConfig fallback = ops::gemm_fallback_config(default_.output, target);
    space_.add(tile_split_knob("tile_m", shape.m, 3, max_register_tile(cpu, fallback.rows), cpu,
                               tile_choice(shape.m, fallback.rows, fallback.rows_middle)));
    space_.add(split_knob("tile_k", shape.k, 2, kMaxUnrolledK));
    space_.add(reorder_knob("order", {{ops::kGemmPanels, ops::kGemmRowsOuter, ops::kGemmRowsMiddle},
                                      {ops::kGemmRowsOuter, ops::kGemmPanels, ops::kGemmRowsMiddle},
                                      {ops::kGemmRowsOuter, ops::kGemmRowsMiddle, ops::kGemmPanels}}));
    space_.add(categorical_knob("parallel", {"outer", "fuse2"}));
    space_.add(annotate_knob("unroll_k", {ForKind::Unrolled, ForKind::Serial}));
  }

  const ConfigSpace& space() const override { return space_; }

  Config default_config() const override {
    ops::GemmConfig fallback = ops::gemm_fallback_config(default_.output, target_);
    return space_.from_json({{"panel", fallback.panel},
                             {"tile_m", tile_choice(shape_.m, fallback.rows, fallback.rows_middle)},
                             {"tile_k", {shape_.k / fallback.k_unroll, fallback.k_unroll}},
                             {"order", fallback.order},
                             {"parallel", fallback.parallel_fused ? "fuse2" : "outer"},
                             {"unroll_k", fallback.unroll_k ? "unroll" : "none"}});
  }

  Program default_program() const override {
    return {default_.inputs, default_.output, ops::default_schedule(default_.output, target_)};
  }

  Program instantiate(const Config& config) const override {
    ops::GemmConfig gemm = gemm_config(config);
    const std::vector<Tensor>& inputs = default_.inputs;
    Tensor c = ops::gemm(inputs[0], inputs[1], gemm.panel);
    return {inputs, c, ops::schedule_gemm(c, gemm)};
  }

  // A dense output (X·Wᵀ) runs the same schedule; its panel width must be the configuration's.
  Schedule schedule_output(const Config& config, const Tensor& output) const override {
    return ops::schedule_gemm(output, gemm_config(config));
  }

  // The packing stage reads B or Wᵀ; the output and the inputs' shapes are compared with this
  // GEMM's packed at the anchor's panel width (a configuration's to choose; schedule_output checks
  // that it is the configuration's). Panels packed before the kernel runs (dense_packed: constant
  // weights packed at compile time) fix the width, which must then be one of the panel knob's.
  std::string anchor_mismatch(const Tensor& anchor) const override {
    int64_t panel = 0;
    bool prepacked = false;
    if (anchor.defined())
      for (const Tensor& t : operand_tensors(anchor))
        if (t->tag == "pack" && t.ndim() == 3) {
          panel = t.shape()[2];
          prepacked = ops::prepacked(t);
        }
    const std::vector<nlohmann::json>& widths = space_.knob("panel").choices;
    if (prepacked && std::find(widths.begin(), widths.end(), nlohmann::json(panel)) == widths.end())
      return "its weights come packed in panels of " + std::to_string(panel) + ", a width the panel knob (" +
             nlohmann::json(widths).dump() + ") does not offer";
    Tensor expected = panel > 0 ? ops::gemm(default_.inputs[0], default_.inputs[1], panel) : default_.output;
    return stage_mismatch(anchor, expected, {"gemm", "dense"});
  }

 private:
  ops::GemmConfig gemm_config(const Config& config) const {
    ops::GemmConfig gemm;
    gemm.panel = config.get_int("panel");
    std::vector<int64_t> m = config.split("tile_m");
    gemm.rows_middle = m[1];
    gemm.rows = m[2];
    gemm.k_unroll = config.split("tile_k")[1];
    std::vector<int> order = config.order("order");
    std::copy(order.begin(), order.end(), gemm.order.begin());
    gemm.parallel_fused = config.get_string("parallel") == "fuse2";
    gemm.unroll_k = config.annotation("unroll_k") == ForKind::Unrolled;
    return gemm;
  }

  GemmShape shape_;
  Target target_;
  ops::OpInstance default_;  // the inputs, and the output with the default panel width
  ConfigSpace space_;
};

}  // namespace

std::shared_ptr<const ScheduleTemplate> make_gemm_template(const GemmShape& shape, const Target& target) {
  return std::make_shared<GemmTemplate>(shape, target);
}

}  // namespace tessel::search
