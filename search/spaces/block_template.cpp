// The fused block's schedule template (search/spaces/block_template.h).
#include "search/spaces/block_template.h"

#include "ops/block_schedule.h"
#include "ops/conv2d_nchwc.h"
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

// Inlines what a model's block inlines (ops::inline_group_stages): the element-wise and layout
// stages between the convolutions that the block's schedule left at the root.
Schedule with_stages_inlined(Schedule s, const ops::BlockInstance& b) {
  for (const Tensor& t : topological_order({b.output})) {
    bool between = t->tag == "injective" || t->tag == "layout_transform";
    if (between && !t.same_as(b.output) && s[t]->attach == AttachKind::Root) s[t].compute_inline();
  }
  return s;
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
  Schedule s = ops::schedule_fused_block(instance_.output, instance_.tile_stages, target_);
  return {instance_.inputs, instance_.output, with_stages_inlined(std::move(s), instance_)};
}

Program BlockTemplate::instantiate(const Config& config) const {
  Schedule s = schedule_block(config, instance_.output, instance_.tile_stages);
  return {instance_.inputs, instance_.output, with_stages_inlined(std::move(s), instance_)};
}

Schedule BlockTemplate::schedule_output(const Config& config, const Tensor& output) const {
  if (!output.same_as(instance_.output))
    user_error("a fused block's template schedules a block with its tile stages (schedule_block), not '",
               output.name(), "' alone");
  return schedule_block(config, output, instance_.tile_stages);
}

std::string BlockTemplate::anchor_mismatch(const Tensor&) const {
  return "a fused block's template schedules a whole block, not one anchor";
}

Schedule BlockTemplate::schedule_block(const Config& config, const Tensor& output,
                                       const std::vector<Tensor>& tile_stages) const {
  return ops::schedule_fused_block(output, tile_stages, window_configs(config), target_);
}

std::string BlockTemplate::block_mismatch(const Tensor& output, const std::vector<Tensor>& tile_stages) const {
  if (tile_stages.size() != instance_.tile_stages.size())
    return "it has " + std::to_string(tile_stages.size() + 1) + " stages, the template's block " +
           std::to_string(instance_.tile_stages.size() + 1);
  std::vector<Tensor> ours = ops::fused_block_windows(instance_.output, instance_.tile_stages);
  std::vector<Tensor> theirs = ops::fused_block_windows(output, tile_stages);
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
