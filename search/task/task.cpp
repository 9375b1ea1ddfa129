// Tuning tasks (search/task/task.h).
#include "search/task/task.h"

#include "passes/lower/lower.h"
#include "support/registry.h"

namespace tessel::search {

Task::Task(WorkloadSpec workload, Target target, std::string space_name,
           std::shared_ptr<const SpaceTemplate> space_template)
    : workload_(std::move(workload)),
      target_(std::move(target)),
      space_name_(std::move(space_name)),
      template_(std::move(space_template)) {}

Task Task::create(const std::string& workload, const std::string& space, const nlohmann::json& space_params,
                  const Target& target) {
  WorkloadSpec spec = parse_workload(workload);
  auto tmpl = Registry<ScheduleSpace>::instance().create(space, space_params)->make_template(spec, target);
  return Task(std::move(spec), target, space, std::move(tmpl));
}

const ConfigSpace& Task::knob_space(const std::string& needed_by) const {
  if (auto* knobs = dynamic_cast<const ConfigSpace*>(&space())) return *knobs;
  user_error(needed_by, " works on knob spaces (e.g. the \"template\" space), but the space '", space_name_,
             "' of ", workload_.name, " is not one");
}

std::string Task::kernel_name() const { return "tuned_" + workload_.op(); }

LoweredFunc Task::lower(const Candidate& candidate) const {
  Program program = template_->program(candidate);
  return tessel::lower(program.schedule, program.args(), kernel_name());
}

LoweredFunc Task::lower_default_program() const {
  Program program = template_->default_program();
  return tessel::lower(program.schedule, program.args(), kernel_name() + "_reference");
}

}  // namespace tessel::search
