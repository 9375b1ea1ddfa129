// The Winograd convolution's schedule template (search/spaces/winograd_template.h).
#include "search/spaces/winograd_template.h"

#include "ops/op_schedule.h"
#include "search/spaces/operator_templates.h"
#include "search/spaces/tile_choices.h"

namespace tessel::search {

namespace {

constexpr int64_t kMaxChannelStep = 8;
// Multiples of every channel step (at most kMaxChannelStep) that divides them.
constexpr int64_t kChannelSlices[] = {16, 32, 64};

class WinogradTemplate : public AnchorTemplate {
 public:
  WinogradTemplate(const ops::WinogradShape& shape, const Target& target)
      : instance_(ops::winograd_instance(shape, target)),
        tiles_(shape.tiles()),
        target_(target),
        fallback_(ops::winograd_fallback_config(instance_.output, target)) {
    const CpuDescription& cpu = target.cpu();
    space_.add(tile_split_knob("tile_p", tiles_, 2, max_register_tile(cpu, fallback_.rows), cpu,
                               tile_choice(tiles_, fallback_.rows)));
    space_.add(split_knob("tile_c", shape.c, 2, kMaxChannelStep));
    space_.add(annotate_knob("unroll_c", {ForKind::Unrolled, ForKind::Serial}));
    // Last, "none" (the schedule before the knob) first: older records keep their points.
    std::vector<nlohmann::json> chunks = {0};
    for (int64_t k : ops::winograd_chunk_choices(instance_.output)) chunks.push_back(k);
    chunk_knob_ = chunks.size() > 1;
    if (chunk_knob_) space_.add(categorical_knob("chunk_tile_rows", chunks));
    // Last too, 0 (the loop order before the knob) first.
    std::vector<nlohmann::json> slices = {0};
    for (int64_t k : kChannelSlices)
      if (k < shape.c && shape.c % k == 0) slices.push_back(k);
    slice_knob_ = slices.size() > 1;
    if (slice_knob_) space_.add(categorical_knob("channel_slice", slices));
  }

  const ConfigSpace& space() const override { return space_; }

  Config default_config() const override {
    int64_t channels = instance_.weights.shape()[3];
    nlohmann::json knobs = {{"tile_p", tile_choice(tiles_, fallback_.rows)},
                            {"tile_c", {channels / fallback_.k_unroll, fallback_.k_unroll}},
                            {"unroll_c", fallback_.unroll_k ? "unroll" : "none"}};
    if (chunk_knob_) knobs["chunk_tile_rows"] = fallback_.chunk_tile_rows;
    if (slice_knob_) knobs["channel_slice"] = fallback_.channel_slice;
    return space_.from_json(knobs);
  }

  Program default_program() const override {
    return {{instance_.data, instance_.weights}, instance_.output, ops::default_schedule(instance_.output, target_)};
  }

  Program instantiate(const Config& config) const override {
    return {{instance_.data, instance_.weights}, instance_.output, schedule_output(config, instance_.output)};
  }

  Schedule schedule_output(const Config& config, const Tensor& output) const override {
    ops::WinogradConfig w;
    w.rows = config.split("tile_p")[1];
    w.k_unroll = config.split("tile_c")[1];
    w.unroll_k = config.annotation("unroll_c") == ForKind::Unrolled;
    if (chunk_knob_) w.chunk_tile_rows = config.get_int("chunk_tile_rows");
    if (slice_knob_) w.channel_slice = config.get_int("channel_slice");
    w.prefetch_bytes = fallback_.prefetch_bytes;  // the target's, not a knob
    return ops::schedule_conv2d_winograd(output, w);
  }

  std::string anchor_mismatch(const Tensor& anchor) const override {
    return stage_mismatch(anchor, instance_.output, {"conv2d_winograd"});
  }

 private:
  ops::WinogradInstance instance_;
  int64_t tiles_;  // of the GEMM stage: the input tiles of every image
  Target target_;
  ops::WinogradConfig fallback_;
  bool chunk_knob_ = false;  // the output has more than one tile row to chunk
  bool slice_knob_ = false;  // the channels split in more than one slice of kChannelSlices
  ConfigSpace space_;
};

}  // namespace

std::shared_ptr<const ScheduleTemplate> make_winograd_template(const ops::WinogradShape& shape, const Target& target) {
  return std::make_shared<WinogradTemplate>(shape, target);
}

TESSEL_REGISTER_OPERATOR_TEMPLATE(winograd, [](const WorkloadSpec& w, const Target& t) {
  return make_winograd_template(w.shape<ops::WinogradShape>(), t);
});

}  // namespace tessel::search
