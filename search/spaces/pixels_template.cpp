// The pixel-tiled convolution's schedule template (search/spaces/pixels_template.h).
#include "search/spaces/pixels_template.h"

#include <algorithm>

#include "ops/cpu_tiles.h"
#include "ops/op_schedule.h"
#include "search/spaces/operator_templates.h"
#include "search/spaces/tile_choices.h"

namespace tessel::search {

namespace {

class PixelsTemplate : public AnchorTemplate {
 public:
  PixelsTemplate(const ops::PixelsShape& shape, const Target& target)
      : instance_(ops::pixels_instance(shape, target)),
        pixels_(shape.h * shape.w),
        target_(target),
        fallback_(ops::pixels_fallback_config(instance_.output, target)) {
    const CpuDescription& cpu = target.cpu();
    int64_t vectors = ops::float_vectors(cpu, instance_.output.shape()[4]);
    int64_t widest = std::max(fallback_.pixels,
                              ops::accumulator_budget(cpu, vectors, ops::kWindowAccumulatorCap) / vectors);
    space_.add(tile_split_knob("tile_p", pixels_, 2, widest, cpu, tile_choice(pixels_, fallback_.pixels)));
    space_.add(categorical_knob("parallel", {"blocks", "tiles"}));
    std::vector<nlohmann::json> prefetch = {fallback_.prefetch_bytes};
    if (fallback_.prefetch_bytes > 0) prefetch.emplace_back(0);
    space_.add(categorical_knob("prefetch", prefetch));
    // Last, 0 (the loop order before the knob) first: older records keep their points.
    std::vector<nlohmann::json> slices = {0};
    int64_t in_blocks = instance_.inputs[0].shape()[1];
    for (int64_t k : {1, 2, 4})
      if (k < in_blocks) slices.emplace_back(k);
    space_.add(categorical_knob("channel_blocks", slices));
  }

  const ConfigSpace& space() const override { return space_; }

  Config default_config() const override {
    return space_.from_json({{"tile_p", tile_choice(pixels_, fallback_.pixels)},
                             {"parallel", fallback_.tiles_outer ? "tiles" : "blocks"},
                             {"prefetch", fallback_.prefetch_bytes},
                             {"channel_blocks", fallback_.channel_blocks}});
  }

  Program default_program() const override {
    return {instance_.inputs, instance_.output, ops::default_schedule(instance_.output, target_)};
  }

  Program instantiate(const Config& config) const override {
    return {instance_.inputs, instance_.output, schedule_output(config, instance_.output)};
  }

  Schedule schedule_output(const Config& config, const Tensor& output) const override {
    ops::PixelsConfig p;
    p.pixels = config.split("tile_p")[1];
    p.tiles_outer = config.get_string("parallel") == "tiles";
    p.prefetch_bytes = config.get_int("prefetch");
    p.channel_blocks = config.get_int("channel_blocks");
    return ops::schedule_conv2d_nchwc_pixels(output, p);
  }

  std::string anchor_mismatch(const Tensor& anchor) const override {
    return stage_mismatch(anchor, instance_.output, {"conv2d_nchwc_pixels"});
  }

  std::vector<std::string> thread_split_knobs() const override { return {"parallel"}; }

 private:
  ops::OpInstance instance_;
  int64_t pixels_;  // H*W
  Target target_;
  ops::PixelsConfig fallback_;
  ConfigSpace space_;
};

}  // namespace

std::shared_ptr<const ScheduleTemplate> make_pixels_template(const ops::PixelsShape& shape, const Target& target) {
  return std::make_shared<PixelsTemplate>(shape, target);
}

TESSEL_REGISTER_OPERATOR_TEMPLATE(pixels, [](const WorkloadSpec& w, const Target& t) {
  return make_pixels_template(w.shape<ops::PixelsShape>(), t);
});

}  // namespace tessel::search
