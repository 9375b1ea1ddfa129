// The schedule choice of a fused group (compiler/group_schedule.h).
#include "compiler/group_schedule.h"

#include <algorithm>

#include "compiler/anchor_workload.h"
#include "ops/block_schedule.h"
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

// The group's kernel rebuilt for a GEMM configuration whose panel width its dense anchor was not
// built with (the panel is the packing stage's layout, which the configuration chooses), with the
// group's prefetches; none when nothing changes.
std::optional<ops::GroupKernel> with_configured_panel(const graph::Graph& g, const graph::FusedGroup& group,
                                                      graph::ValueId output, const nlohmann::json& config) {
  const graph::Node& anchor = g.node(group.anchor);
  if (anchor.op != "dense" || !config.contains("panel") || !config["panel"].is_number_integer()) return std::nullopt;
  int64_t panel = config["panel"].get<int64_t>();
  if (anchor.attrs.get_int("panel", 0) == panel) return std::nullopt;
  // A copy of the graph with a dense node of that panel width in the anchor's place.
  graph::Graph copy = g;
  graph::Attributes attrs = anchor.attrs;
  attrs.set("panel", panel);
  graph::ValueId old_value = anchor.outputs.at(0), new_value = copy.add_op("dense", anchor.inputs, attrs);
  copy.replace_all_uses(old_value, new_value);
  std::vector<graph::NodeId> nodes = group.nodes;
  std::replace(nodes.begin(), nodes.end(), group.anchor, copy.value(new_value).producer);
  ops::GroupKernel kernel = ops::group_kernel(copy, nodes, output == old_value ? new_value : output);
  ops::add_prefetched(kernel, copy, group.prefetched);
  return kernel;
}

// Applies `tuned` to the kernel, or says in `choice.reason` why it cannot be.
void apply(const search::TunedConfig& tuned, const search::Task& task, const graph::Graph& g,
           const graph::FusedGroup& group, graph::ValueId output, const ops::GroupKernel& given,
           GroupSchedule& choice) {
  const auto* tmpl = dynamic_cast<const search::ScheduleTemplate*>(&task.space_template());
  std::string why = "the template space is not a knob space";
  if (tmpl) try {
      std::optional<ops::GroupKernel> rebuilt = with_configured_panel(g, group, output, tuned.config);
      const ops::GroupKernel& kernel = rebuilt ? *rebuilt : given;
      search::KernelStages stages = kernel_stages(kernel);
      why = tmpl->kernel_mismatch(stages);
      if (why.empty()) {
        Schedule s = tmpl->schedule_kernel(tmpl->space().get(tuned.candidate), stages);
        ops::inline_group_stages(kernel, s);
        choice.schedule = std::move(s);
        choice.kernel = std::move(rebuilt);
        return;
      }
    } catch (const UserError& e) {
      why = e.what();
    }
  choice.reason = "record " + choice.record + " not applied: " + why;
  choice.status = "default";
}

// A fused block's label (its convolutions and the rows each thread slides down, or its shares of
// the channels) and operations (its convolutions', also when the chain is no block workload).
void describe_fused_block(const graph::Graph& g, const graph::FusedGroup& group, const ops::GroupKernel& kernel,
                          const Target& target, GroupSchedule& choice) {
  std::string ops;
  for (graph::NodeId n : group.nodes) {
    std::optional<search::WorkloadSpec> w = anchor_workload(g, n);
    if (!w) continue;
    choice.flops += w->flops();
    ops += (ops.empty() ? "" : " + ") + g.node(n).op;
  }
  int64_t shares = g.node(group.anchor).attrs.get_int("channel_shares", 1);
  int64_t rows = ops::block_share_rows(kernel.output, target.cpu());
  choice.anchor_tag = "fused block: " + ops +
                      (shares > 1 ? " in " + std::to_string(shares) + " shares of the channels"
                                  : " sliding down " + std::to_string(rows) + "-row shares");
}

}  // namespace

std::string GroupSchedule::label() const {
  std::string won = default_won ? ", whose selection chose the default: the default runs" : "";
  if (status == "tuned") return "tuned (record " + record + won + ")";
  if (status == "nearest") return "nearest (record " + record + " of shape " + record_shape + won + ")";
  if (!tunable()) return "default (" + anchor_tag + ")";
  return "default (" + anchor_tag + "; " + (reason.empty() ? "no record for " + workload : reason) + ")";
}

nlohmann::json GroupSchedule::to_json() const {
  nlohmann::json j = {{"status", status}};
  if (!workload.empty()) j["workload"] = workload;
  if (!record.empty()) j["record"] = record;
  if (!record_shape.empty()) j["record_shape"] = record_shape;
  if (!reason.empty()) j["reason"] = reason;
  if (default_won) j["default_won"] = true;
  return j;
}

GroupSchedule choose_group_schedule(const graph::Graph& g, const graph::FusedGroup& group, graph::ValueId output,
                                    const ops::GroupKernel& kernel, const Target& target,
                                    const search::TunedRecords* records) {
  GroupSchedule choice;
  if (!group.tile_values.empty())
    describe_fused_block(g, group, kernel, target, choice);
  else
    choice.anchor_tag = kernel.anchor.defined() ? kernel.anchor->tag : kernel.output->tag;
  std::optional<search::WorkloadSpec> w = group_workload(g, group);
  if (!w) return choice;
  choice.workload = w->name;
  choice.flops = w->flops();
  if (!records) {
    choice.reason = "no records database given";
    return choice;
  }
  std::optional<search::Task> made;
  try {
    made = anchor_task(*w, target);
  } catch (const UserError& e) {  // a shape the template cannot block for this target
    choice.reason = std::string("no template for it: ") + e.what();
    return choice;
  }
  const search::Task& task = *made;
  std::optional<search::TunedConfig> tuned = records->find(task);
  if (tuned) {
    choice.status = "tuned";
  } else if ((tuned = records->find_nearest(task))) {
    choice.status = "nearest";
    choice.record_shape = tuned->record_workload;
  } else {
    choice.reason = records->has_records_of(task)
                        ? "the records of " + w->name + " in " + records->path() +
                              " are of an older version of its template (tune it again)"
                        : "no record for " + w->name + " in " + records->path();
    return choice;
  }
  choice.record = tuned->record_candidate.str();
  if (!tuned->same_target) choice.record += "@" + tuned->record_target;
  // The default won the record's final selection: today's default runs, not the default of the
  // day it was tuned, which a later default rule (measured faster) would otherwise lose to.
  choice.default_won = tuned->source == "selection" && tuned->origin == "default";
  if (!choice.default_won) apply(*tuned, task, g, group, output, kernel, choice);
  return choice;
}

GroupSchedule set_aside(GroupSchedule choice, const std::string& why) {
  choice.status = "default";
  choice.reason = why;
  choice.record_shape.clear();
  choice.default_won = false;
  choice.schedule.reset();
  choice.kernel.reset();
  return choice;
}

search::KernelStages kernel_stages(const ops::GroupKernel& kernel) {
  return {kernel.output, kernel.anchor, kernel.tile_stages};
}

}  // namespace tessel
