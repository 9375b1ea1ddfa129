// The schedule-space plugin interface (kind "space"): for a workload and a target, a space makes
// the template that turns each of its candidates (candidate.h) into a schedule.
//
// Two levels:
//  - SpaceTemplate, what the tuner, strategies and measurement see: a SearchSpace of candidates
//    of any kind, the program of a candidate, and the default. A space whose points are decision
//    lists (a sketch or polyhedral space) implements this directly.
//  - ScheduleTemplate, the AutoTVM kind: knobs in a ConfigSpace (config_space.h) whose candidates
//    are configuration indices. Its templates implement instantiate(Config); the candidate side
//    comes with it. In a model, it schedules a fused group's kernel (schedule_kernel): an
//    operator's template (AnchorTemplate) by the group's anchor stage, a fused block's by its chain.
//
// A template fixes the operator's inputs (placeholders in the layout its schedules want) for all
// configurations; a configuration may still change the computation feeding the output (GEMM's
// panel width), so a program is the output and its schedule together.
//
//   auto space = Registry<ScheduleSpace>::instance().create("template");
//   std::shared_ptr<const SpaceTemplate> t = space->make_template(parse_workload("C6"), Target::host());
//   Program p = t->program(t->search_space().random(rng));
//   LoweredFunc f = lower(p.schedule, p.args(), "c6");
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "ir/schedule.h"
#include "search/spaces/config_space.h"
#include "search/spaces/workload_spec.h"
#include "target/target.h"

namespace tessel::search {

// An output tensor, its schedule, and the kernel arguments (the template's inputs, then output).
struct Program {
  std::vector<Tensor> inputs;
  Tensor output;
  Schedule schedule;
  std::vector<Tensor> args() const;
};

class SpaceTemplate {
 public:
  virtual ~SpaceTemplate() = default;
  virtual const SearchSpace& search_space() const = 0;
  // The schedule of a candidate of search_space(). Throws UserError if the candidate is not in
  // the space or the schedule primitives reject it.
  virtual Program program(const Candidate& candidate) const = 0;
  // The candidate equal to the operator's default schedule in ops/.
  virtual Candidate default_candidate() const = 0;
  // The operator's default schedule from ops/: the reference results are computed with it.
  virtual Program default_program() const = 0;
  // Whether `candidate` gives each thread the part of the output the default gives it (always where
  // the space offers no other split). In a model the split decides which core wrote what the next
  // layer reads, which a kernel measured alone cannot show (search/selection.h).
  virtual bool splits_as_default(const Candidate& candidate) const { return true; }
};

// What a knob template schedules in a model: a fused group's kernel as tensors (compiler/
// group_schedule.h builds it from ops::GroupKernel).
struct KernelStages {
  Tensor output;                    // what the kernel computes
  Tensor anchor;                    // its operator's stage (undefined when the output is the anchor)
  std::vector<Tensor> tile_stages;  // a fused block's stages computed per row tile of the output
};

// A knob template: its candidates are the indices of a ConfigSpace.
class ScheduleTemplate : public SpaceTemplate {
 public:
  virtual const ConfigSpace& space() const = 0;
  // The schedule of configuration `config` (of space()). Throws UserError if the schedule
  // primitives reject it.
  virtual Program instantiate(const Config& config) const = 0;
  // The configuration equal to the operator's default schedule in ops/.
  virtual Config default_config() const = 0;
  // Why `kernel` is not the computation this template schedules (another operator or tag, another
  // shape or blocking of its inputs, another reduction); empty when it is. A configuration is
  // never applied to another computation.
  virtual std::string kernel_mismatch(const KernelStages& kernel) const = 0;
  // The schedule of configuration `config` applied to `kernel` (check kernel_mismatch first),
  // whose other element-wise stages the caller inlines (ops/graph/fused_kernel.h's
  // inline_group_stages). Throws UserError if the schedule primitives reject the configuration.
  virtual Schedule schedule_kernel(const Config& config, const KernelStages& kernel) const = 0;

  // The knobs that decide which thread computes which part of the output (none by default).
  virtual std::vector<std::string> thread_split_knobs() const { return {}; }

  const SearchSpace& search_space() const final { return space(); }
  Program program(const Candidate& candidate) const final { return instantiate(space().get(candidate)); }
  Candidate default_candidate() const final { return default_config().candidate(); }
  // The candidate's thread_split_knobs() have the default's values.
  bool splits_as_default(const Candidate& candidate) const final;
};

// The template of one operator, which schedules a kernel by its anchor stage: the output, reached
// from the anchor through element-wise stages, is scheduled as the operator's own output would be.
// A fused block (tile stages) is never its kernel.
class AnchorTemplate : public ScheduleTemplate {
 public:
  // The schedule of configuration `config` applied to `output`, a tensor computed by this
  // template's operator (its anchor stage) through element-wise stages of a fused group. Throws
  // UserError if the schedule primitives reject the configuration for this output.
  virtual Schedule schedule_output(const Config& config, const Tensor& output) const = 0;
  // Why `anchor` is not the stage this template schedules; empty when it is.
  virtual std::string anchor_mismatch(const Tensor& anchor) const = 0;

  std::string kernel_mismatch(const KernelStages& kernel) const final;
  Schedule schedule_kernel(const Config& config, const KernelStages& kernel) const final {
    return schedule_output(config, kernel.output);
  }
};

// What AnchorTemplate::anchor_mismatch checks: `anchor` has one of `tags`, the shape of
// `expected`, the same number of reduction axes, and direct inputs of the same shapes.
std::string stage_mismatch(const Tensor& anchor, const Tensor& expected, const std::vector<std::string>& tags);

class ScheduleSpace {
 public:
  static constexpr const char* kPluginKind = "space";
  virtual ~ScheduleSpace() = default;
  // The template of the workload for the target. Throws UserError if the space has no template
  // for the workload's operator.
  virtual std::shared_ptr<const SpaceTemplate> make_template(const WorkloadSpec& workload,
                                                             const Target& target) const = 0;
};

}  // namespace tessel::search
