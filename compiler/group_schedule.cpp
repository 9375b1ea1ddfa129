// The schedule choice of a fused group (compiler/group_schedule.h).
#include "compiler/group_schedule.h"

#include "compiler/anchor_workload.h"
#include "search/spaces/schedule_template.h"
#include "support/error.h"
#include "support/registry.h"

namespace tessel {

namespace {

// The template space's task for the anchor's workload; the space is the one `tessel tune` and
// `tessel tune-model` tune in.
search::Task anchor_task(const search::WorkloadSpec& w, const Target& target) {
  auto tmpl = Registry<search::ScheduleSpace>::instance().create("template")->make_template(w, target);
  return search::Task(w, target, "template", tmpl);
}

// Applies `tuned` to the kernel, or says in `choice.reason` why it cannot be.
void apply(const search::TunedConfig& tuned, const search::Task& task, const ops::GroupKernel& kernel,
           GroupSchedule& choice) {
  const auto* tmpl = dynamic_cast<const search::ScheduleTemplate*>(&task.space_template());
  std::string why = tmpl ? tmpl->anchor_mismatch(kernel.anchor.defined() ? kernel.anchor : kernel.output)
                         : "the template space is not a knob space";
  if (why.empty()) {
    try {
      Schedule s = tmpl->schedule_output(tmpl->space().get(tuned.candidate), kernel.output);
      ops::inline_group_stages(kernel, s);
      choice.schedule = std::move(s);
      return;
    } catch (const UserError& e) {
      why = e.what();
    }
  }
  choice.reason = "record " + choice.record + " not applied: " + why;
  choice.status = "default";
}

}  // namespace

std::string GroupSchedule::label() const {
  if (status == "tuned") return "tuned (record " + record + ")";
  if (status == "nearest") return "nearest (record " + record + " of shape " + record_shape + ")";
  if (!tunable()) return "default (" + anchor_tag + ")";
  return "default (" + anchor_tag + "; " + (reason.empty() ? "no record for " + workload : reason) + ")";
}

nlohmann::json GroupSchedule::to_json() const {
  nlohmann::json j = {{"status", status}};
  if (!workload.empty()) j["workload"] = workload;
  if (!record.empty()) j["record"] = record;
  if (!record_shape.empty()) j["record_shape"] = record_shape;
  if (!reason.empty()) j["reason"] = reason;
  return j;
}

GroupSchedule choose_group_schedule(const graph::Graph& g, graph::NodeId anchor, const ops::GroupKernel& kernel,
                                    const Target& target, const search::TunedRecords* records) {
  GroupSchedule choice;
  choice.anchor_tag = kernel.anchor.defined() ? kernel.anchor->tag : kernel.output->tag;
  std::optional<search::WorkloadSpec> w = anchor_workload(g, anchor);
  if (!w) return choice;
  choice.workload = w->name;
  if (!records) {
    choice.reason = "no records database given";
    return choice;
  }
  search::Task task = anchor_task(*w, target);
  std::optional<search::TunedConfig> tuned = records->find(task);
  if (tuned) {
    choice.status = "tuned";
  } else if ((tuned = records->find_nearest(task))) {
    choice.status = "nearest";
    choice.record_shape = tuned->record_workload;
  } else {
    choice.reason = "no record for " + w->name + " in " + records->path();
    return choice;
  }
  choice.record = tuned->record_candidate.str();
  if (!tuned->same_target) choice.record += "@" + tuned->record_target;
  apply(*tuned, task, kernel, choice);
  return choice;
}

}  // namespace tessel
