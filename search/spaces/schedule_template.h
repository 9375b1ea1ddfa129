// The schedule-space plugin interface (kind "space"): for a workload, a template declares its
// knobs and turns any configuration of them into a schedule.
//
// A template fixes the operator's inputs (placeholders in the layout its schedules want) for all
// configurations; a configuration may still change the computation feeding the output (GEMM's
// panel width), so instantiate() returns the output and its schedule together.
//
//   auto space = Registry<ScheduleSpace>::instance().create("template");
//   std::shared_ptr<const ScheduleTemplate> t = space->make_template(parse_workload("C6"));
//   Program p = t->instantiate(t->space().get(17));
//   LoweredFunc f = lower(p.schedule, p.args(), "c6");
#pragma once
#include <memory>
#include <string>

#include "ir/schedule.h"
#include "search/spaces/config_space.h"
#include "search/spaces/workload_spec.h"

namespace tessel::search {

// An output tensor, its schedule, and the kernel arguments (the template's inputs, then output).
struct Program {
  std::vector<Tensor> inputs;
  Tensor output;
  Schedule schedule;
  std::vector<Tensor> args() const;
};

class ScheduleTemplate {
 public:
  virtual ~ScheduleTemplate() = default;
  virtual const ConfigSpace& space() const = 0;
  // The schedule of configuration `config` (of space()). Throws UserError if the schedule
  // primitives reject it.
  virtual Program instantiate(const Config& config) const = 0;
  // The configuration equal to the operator's default schedule in ops/.
  virtual Config default_config() const = 0;
  // The operator's default schedule from ops/: the reference results are computed with it.
  virtual Program default_program() const = 0;
};

class ScheduleSpace {
 public:
  static constexpr const char* kPluginKind = "space";
  virtual ~ScheduleSpace() = default;
  // Throws UserError if the space has no template for the workload's operator.
  virtual std::shared_ptr<const ScheduleTemplate> make_template(const WorkloadSpec& workload) const = 0;
};

}  // namespace tessel::search
