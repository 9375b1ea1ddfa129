// A tuning task: one workload for one target, the schedule space searched for it, and the template
// that turns a candidate of the space into a schedule and a lowered loop program. Strategies and
// cost models see the task, so they can look at the program a candidate lowers to.
//
// A task is identified by what it computes and where: key() is the workload's canonical key
// (search/spaces/workload_key.h) and the target's key (Target::key(), "llvm_cpu -isa=avx2"). The workload's
// name is a label; "C6" and "conv2d:1,128,28,28,128,3,1,1" make tasks with the same key.
//
//   Task task = Task::create("C6", "template", nullptr, Target::parse("llvm_cpu -isa=avx2"));
//   LoweredFunc f = task.lower(task.space().random(rng));
#pragma once
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "ir/stmt.h"
#include "search/spaces/schedule_template.h"
#include "search/spaces/workload_spec.h"
#include "target/target.h"

namespace tessel::search {

// What records are matched by: the computation and the code's target.
struct TaskKey {
  std::string workload;  // WorkloadSpec::key()
  std::string target;    // Target::key()
  bool operator==(const TaskKey& other) const { return workload == other.workload && target == other.target; }
};

class Task {
 public:
  Task(WorkloadSpec workload, Target target, std::string space_name, std::shared_ptr<const SpaceTemplate> space_template);
  // The workload parsed from its name and the template the named space plugin makes for it and the
  // target; throws UserError for unknown workloads or spaces, or a space without a template for
  // the workload's operator.
  static Task create(const std::string& workload, const std::string& space, const nlohmann::json& space_params = nullptr,
                     const Target& target = Target::host());

  const WorkloadSpec& workload() const { return workload_; }
  const Target& target() const { return target_; }
  TaskKey key() const { return {workload_.key(), target_.key()}; }
  const std::string& space_name() const { return space_name_; }
  const SpaceTemplate& space_template() const { return *template_; }
  const SearchSpace& space() const { return template_->search_space(); }
  // The knob space of a knob template (the "template" space); UserError for another kind of space,
  // naming what needed it.
  const ConfigSpace& knob_space(const std::string& needed_by) const;

  Program program(const Candidate& candidate) const { return template_->program(candidate); }
  LoweredFunc lower(const Candidate& candidate) const;
  LoweredFunc lower(const Config& config) const { return lower(config.candidate()); }
  Candidate default_candidate() const { return template_->default_candidate(); }
  LoweredFunc lower_default_program() const;  // the ops/ default schedule: the reference

 private:
  std::string kernel_name() const;
  WorkloadSpec workload_;
  Target target_;
  std::string space_name_;
  std::shared_ptr<const SpaceTemplate> template_;
};

}  // namespace tessel::search
