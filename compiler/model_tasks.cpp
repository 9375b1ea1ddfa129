// A model's tuning tasks (compiler/model_tasks.h).
#include "compiler/model_tasks.h"

#include <iostream>
#include <unordered_map>

#include "compiler/anchor_workload.h"
#include "support/registry.h"

namespace tessel {

std::vector<search::WeightedTask> model_tasks(const graph::OptimizedGraph& opt, const Target& target) {
  std::vector<search::WeightedTask> tasks;
  std::unordered_map<std::string, size_t> by_key;
  auto space = Registry<search::ScheduleSpace>::instance().create("template");
  for (const graph::FusedGroup& group : fused_groups(opt)) {
    if (!group.tile_values.empty()) continue;  // a fused block: its own schedule, no template space (yet)
    std::optional<search::WorkloadSpec> w = anchor_workload(opt.graph, group.anchor);
    if (!w) continue;
    auto [it, added] = by_key.emplace(w->key(), tasks.size());
    if (added) try {
        tasks.push_back({search::Task(*w, target, "template", space->make_template(*w, target)), 0});
      } catch (const UserError& e) {  // no template for this shape and target: not a task
        by_key.erase(it);
        std::cerr << "note: " << w->name << " is not tuned: " << e.what() << "\n";
        continue;
      }
    tasks[it->second].weight += 1;
  }
  return tasks;
}

}  // namespace tessel
