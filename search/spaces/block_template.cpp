// The fused block's schedule template (search/spaces/block_template.h).
#include "search/spaces/block_template.h"

#include "ops/block_schedule.h"
#include "ops/conv2d_nchwc.h"
#include "ops/op_schedule.h"
#include "search/spaces/operator_templates.h"
#include "search/spaces/tile_choices.h"
#include "search/spaces/window_template.h"

namespace tessel::search {

namespace {

constexpr int64_t kMaxTileRows = 2;

std::string knob(const char* name, size_t stage) { return name + std::string("_") + std::to_string(stage); }

// The stage tensors whose loops the configurations tile: the tile stages, then the output.
std::vector<Tensor> stage_outputs(const ops::BlockInstance& b) {
  std::vector<Tensor> stages = b.tile_stages;
  stages.push_back(b.output);
  return stages;
}

}  // namespace

BlockTemplate::BlockTemplate(const ops::BlockShape& shape, const Target& target)
    : instance_(ops::block_instance(shape, target)), target_(target) {
  fallback_ = ops::fused_block_configs(instance_.output, instance_.tile_stages, target);
  std::vector<Tensor> stages = stage_outputs(instance_);
  std::vector<Tensor> windows = ops::fused_block_windows(instance_.output, instance_.tile_stages);
  const CpuDescription& cpu = target.cpu();
  for (size_t i = 0; i < stages.size(); ++i) {
    const auto& extent = stages[i].shape();
    const ops::WindowConfig& f = fallback_[i];
    space_.add(tile_split_knob(knob("tile_oh", i), extent[2], 2, kMaxTileRows, cpu, tile_choice(extent[2], f.rows)));
    space_.add(tile_split_knob(knob("tile_ow", i), extent[3], 2, widest_column_tile(stages[i], cpu), cpu,
                               tile_choice(extent[3], f.columns)));
    bool conv = windows[i]->tag == "conv2d_nchwc";
    channel_blocks_.push_back(conv ? ops::conv2d_tile_channel_blocks(stages[i], cpu) : 1);
    if (channel_blocks_[i] > 1) space_.add(categorical_knob(knob("channel_blocks", i), {1, channel_blocks_[i]}));
  }
}

Config BlockTemplate::default_config() const {
  std::vector<Tensor> stages = stage_outputs(instance_);
  nlohmann::json knobs = nlohmann::json::object();
  for (size_t i = 0; i < stages.size(); ++i) {
    const auto& extent = stages[i].shape();
    knobs[knob("tile_oh", i)] = tile_choice(extent[2], fallback_[i].rows);
    knobs[knob("tile_ow", i)] = tile_choice(extent[3], fallback_[i].columns);
    if (channel_blocks_[i] > 1) knobs[knob("channel_blocks", i)] = fallback_[i].channel_blocks;
  }
  return space_.from_json(knobs);
}

Program BlockTemplate::default_program() const {
  return block_program(ops::schedule_fused_block(instance_.output, instance_.tile_stages, target_));
}

Program BlockTemplate::instantiate(const Config& config) const {
  return block_program(schedule_kernel(config, {instance_.output, {}, instance_.tile_stages}));
}

// The stages between the convolutions are inlined as a model's block inlines them
// (ops::inline_group_stages), so a trial measures what the model would run.
Program BlockTemplate::block_program(Schedule s) const {
  ops::inline_root_stages(s, instance_.output, instance_.node_outputs, instance_.tile_stages);
  return {instance_.inputs, instance_.output, std::move(s)};
}

Schedule BlockTemplate::schedule_kernel(const Config& config, const KernelStages& kernel) const {
  return ops::schedule_fused_block(kernel.output, kernel.tile_stages, window_configs(config), target_);
}

std::string BlockTemplate::kernel_mismatch(const KernelStages& kernel) const {
  if (kernel.tile_stages.empty()) return "its template schedules fused blocks";
  if (kernel.tile_stages.size() != instance_.tile_stages.size())
    return "it has " + std::to_string(kernel.tile_stages.size() + 1) + " stages, the template's block " +
           std::to_string(instance_.tile_stages.size() + 1);
  std::vector<Tensor> ours = ops::fused_block_windows(instance_.output, instance_.tile_stages);
  std::vector<Tensor> theirs = ops::fused_block_windows(kernel.output, kernel.tile_stages);
  for (size_t i = 0; i < ours.size(); ++i) {
    std::string why = stage_mismatch(theirs[i], ours[i], {ours[i]->tag});
    if (!why.empty()) return "stage " + std::to_string(i) + ": " + why;
  }
  return "";
}

std::vector<ops::WindowConfig> BlockTemplate::window_configs(const Config& config) const {
  std::vector<ops::WindowConfig> configs = fallback_;
  for (size_t i = 0; i < configs.size(); ++i) {
    configs[i].rows = config.split(knob("tile_oh", i))[1];
    configs[i].columns = config.split(knob("tile_ow", i))[1];
    if (channel_blocks_[i] > 1) configs[i].channel_blocks = config.get_int(knob("channel_blocks", i));
  }
  return configs;
}

std::shared_ptr<const ScheduleTemplate> make_block_template(const ops::BlockShape& shape, const Target& target) {
  return std::make_shared<BlockTemplate>(shape, target);
}

TESSEL_REGISTER_OPERATOR_TEMPLATE(block, [](const WorkloadSpec& w, const Target& t) {
  return make_block_template(w.shape<ops::BlockShape>(), t);
});

}  // namespace tessel::search
