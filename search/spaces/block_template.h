// The schedule template of a fused block (ops/block_workload.h, ops/block_schedule.h): the register
// tile of each of its convolutions, tuned together, since they run interleaved one output row at a
// time and share the caches. Knobs per stage i (producers first, the output last): the tile's
// output rows (tile_oh_i: 1 or 2) and columns (tile_ow_i, as the window templates offer them), and
// for a convolution whose fallback may span several output channel blocks, how many it spans
// (channel_blocks_i). The reduction order, unrolling and the rows each thread slides down stay the
// fallback's. The default configuration is every stage's fallback, so it lowers to the ops/ default.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "ops/block_workload.h"
#include "ops/window_schedule.h"
#include "search/spaces/schedule_template.h"

namespace tessel::search {

class BlockTemplate : public ScheduleTemplate {
 public:
  BlockTemplate(const ops::BlockShape& shape, const Target& target);

  const ConfigSpace& space() const override { return space_; }
  Config default_config() const override;
  Program default_program() const override;
  Program instantiate(const Config& config) const override;
  // A model's block: its tile stages and output (ops::GroupKernel's), whose convolutions must be
  // the template's (shapes and blocks); the caller inlines its other stages.
  std::string kernel_mismatch(const KernelStages& kernel) const override;
  Schedule schedule_kernel(const Config& config, const KernelStages& kernel) const override;

 private:
  Program block_program(Schedule s) const;
  std::vector<ops::WindowConfig> window_configs(const Config& config) const;

  ops::BlockInstance instance_;
  Target target_;
  std::vector<ops::WindowConfig> fallback_;  // per stage, the output's last
  std::vector<int64_t> channel_blocks_;      // per stage: the knob's wider choice (1: no knob)
  ConfigSpace space_;
};

std::shared_ptr<const ScheduleTemplate> make_block_template(const ops::BlockShape& shape, const Target& target);

}  // namespace tessel::search
