// A model's tuning tasks (compiler/model_tasks.h).
#include "compiler/model_tasks.h"

#include <algorithm>
#include <iostream>
#include <unordered_map>
#include <unordered_set>

#include "compiler/anchor_workload.h"
#include "compiler/group_schedule.h"
#include "ops/graph/fused_kernel.h"
#include "search/spaces/schedule_template.h"
#include "support/error.h"
#include "support/registry.h"

namespace tessel {

namespace {

// Appends the task of `group`'s workload `w`; returns why not when the template has no space for
// it, or its space cannot schedule the group's kernel at any configuration, so that no record
// tuned in it would ever apply (ScheduleTemplate::kernel_mismatch: a dense_packed anchor, whose
// weights were packed at compile time in a panel width the GEMM template does not offer).
std::string task_for(const search::WorkloadSpec& w, const graph::Graph& g, const graph::FusedGroup& group,
                     const Target& target, const search::ScheduleSpace& space,
                     std::vector<search::WeightedTask>& tasks) {
  try {
    std::shared_ptr<const search::SpaceTemplate> made = space.make_template(w, target);
    if (const auto* tmpl = dynamic_cast<const search::ScheduleTemplate*>(made.get())) {
      ops::GroupKernel kernel = ops::group_kernel(g, group.nodes, group.outputs.at(0), group.tile_values);
      std::string why = tmpl->kernel_mismatch(kernel_stages(kernel));
      if (!why.empty()) return "its template cannot schedule its group: " + why;
    }
    tasks.push_back({search::Task(w, target, "template", made), 0});
    return "";
  } catch (const UserError& e) {  // no template for this shape and target
    return e.what();
  }
}

}  // namespace

std::vector<search::WeightedTask> model_tasks(const graph::OptimizedGraph& opt, const Target& target,
                                              std::vector<std::string>* notes) {
  std::vector<search::WeightedTask> tasks;
  std::unordered_map<std::string, size_t> by_key;
  std::unordered_set<std::string> untunable;
  auto space = Registry<search::ScheduleSpace>::instance().create("template");
  for (const graph::FusedGroup& group : fused_groups(opt)) {
    std::optional<search::WorkloadSpec> w = group_workload(opt.graph, group);
    if (!w || untunable.count(w->key())) continue;
    auto [it, added] = by_key.emplace(w->key(), tasks.size());
    if (added) {
      std::string why = task_for(*w, opt.graph, group, target, *space, tasks);
      if (!why.empty()) {  // not a task: its records could not apply
        by_key.erase(it);
        untunable.insert(w->key());
        std::string note = "note: " + w->name + " is not tuned: " + why;
        if (notes) notes->push_back(note);
        else std::cerr << note << "\n";
        continue;
      }
    }
    tasks[it->second].weight += 1;
  }
  return tasks;
}

std::vector<graph::OptimizedGraph> optimize_at_thread_counts(const graph::Graph& g,
                                                             const std::vector<std::string>& pipeline,
                                                             const Target& target,
                                                             const std::vector<int>& thread_counts) {
  for (int threads : thread_counts)
    if (threads < 1) user_error("a model runs on at least one thread; ", threads, " were asked for");
  std::vector<graph::OptimizedGraph> graphs;
  for (int threads : thread_counts) graphs.push_back(graph::optimize_graph(g, pipeline, target.with_threads(threads)));
  return graphs;
}

std::vector<search::WeightedTask> model_tasks_at_thread_counts(const graph::Graph& g,
                                                               const std::vector<std::string>& pipeline,
                                                               const Target& target,
                                                               const std::vector<int>& thread_counts,
                                                               std::vector<std::string>* notes) {
  std::vector<search::WeightedTask> tasks;
  std::unordered_map<std::string, size_t> by_key;
  std::vector<std::string> all_notes;
  for (const graph::OptimizedGraph& opt : optimize_at_thread_counts(g, pipeline, target, thread_counts)) {
    for (search::WeightedTask& t : model_tasks(opt, target, &all_notes)) {
      auto [it, added] = by_key.emplace(t.task.workload().key(), tasks.size());
      if (added) tasks.push_back(std::move(t));
      else tasks[it->second].weight = std::max(tasks[it->second].weight, t.weight);
    }
  }
  std::unordered_set<std::string> noted;
  for (const std::string& note : all_notes) {
    if (!noted.insert(note).second) continue;
    if (notes) notes->push_back(note);
    else std::cerr << note << "\n";
  }
  return tasks;
}

}  // namespace tessel
