// Graph pass "plan_memory": static memory planning with buffer reuse (OptimizedGraph::memory).
// The fused groups (one per operator when "fuse" did not run) execute in order; each value a group
// writes is live from that step to the last step reading it. Walking the steps, a group's outputs
// take free storage (the smallest that fits, else the largest free one, grown: TVM's graph memory
// planner), and storage is freed after the step of its value's last reader, never before the
// group's outputs are placed, so no kernel writes a buffer it reads. Graph inputs and outputs keep
// storage of their own.
#include <algorithm>
#include <unordered_map>

#include "passes/graph/graph_pass.h"
#include "support/registry.h"

namespace tessel::graph {

namespace {

int64_t bytes_of(const TensorType& t) { return std::max<int64_t>(t.numel() * t.dtype.bytes(), 1); }

class Planner {
 public:
  Planner(const Graph& g, const std::vector<FusedGroup>& groups) : g_(g), groups_(groups) {
    for (size_t s = 0; s < groups.size(); ++s)
      for (NodeId n : groups[s].nodes) step_of_[n] = static_cast<int>(s);
  }

  MemoryPlan run() {
    for (ValueId v : g_.inputs()) own_storage(v);
    for (ValueId v : g_.outputs())
      if (!plan_.storage_of.count(v)) own_storage(v);
    std::unordered_map<int, std::vector<ValueId>> dying = last_uses();
    for (size_t s = 0; s < groups_.size(); ++s) {
      for (ValueId v : groups_[s].outputs) {
        if (plan_.storage_of.count(v)) continue;  // a graph output
        plan_.intermediate_bytes += bytes_of(g_.value(v).type);
        plan_.storage_of[v] = take(bytes_of(g_.value(v).type));
      }
      for (ValueId v : dying[static_cast<int>(s)]) free_.push_back(plan_.storage_of.at(v));
    }
    for (size_t i = 0; i < plan_.storage_bytes.size(); ++i)
      if (!plan_.storage_is_io[i]) plan_.planned_bytes += plan_.storage_bytes[i];
    return plan_;
  }

 private:
  // Per step, the intermediate values whose last reader runs in it (or that nothing reads).
  std::unordered_map<int, std::vector<ValueId>> last_uses() const {
    std::unordered_map<int, std::vector<ValueId>> dying;
    for (size_t s = 0; s < groups_.size(); ++s) {
      for (ValueId v : groups_[s].outputs) {
        if (g_.is_output(v)) continue;
        int last = static_cast<int>(s);
        for (const Use& u : g_.users(v)) last = std::max(last, step_of_.at(u.node));
        dying[last].push_back(v);
      }
    }
    return dying;
  }

  void own_storage(ValueId v) {
    plan_.storage_of[v] = static_cast<int>(plan_.storage_bytes.size());
    plan_.storage_bytes.push_back(bytes_of(g_.value(v).type));
    plan_.storage_is_io.push_back(true);
  }

  int take(int64_t bytes) {
    auto best = free_.end();
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      int64_t size = plan_.storage_bytes[*it];
      if (best == free_.end()) {
        best = it;
        continue;
      }
      int64_t best_size = plan_.storage_bytes[*best];
      bool fits = size >= bytes, best_fits = best_size >= bytes;
      if ((fits && (!best_fits || size < best_size)) || (!fits && !best_fits && size > best_size)) best = it;
    }
    if (best == free_.end()) {
      plan_.storage_bytes.push_back(bytes);
      plan_.storage_is_io.push_back(false);
      return static_cast<int>(plan_.storage_bytes.size() - 1);
    }
    int id = *best;
    free_.erase(best);
    plan_.storage_bytes[id] = std::max(plan_.storage_bytes[id], bytes);
    return id;
  }

  const Graph& g_;
  const std::vector<FusedGroup>& groups_;
  std::unordered_map<NodeId, int> step_of_;
  std::vector<int> free_;
  MemoryPlan plan_;
};

std::string mib(int64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

class PlanMemory : public GraphPass {
 public:
  std::string run(OptimizedGraph& opt) const override {
    opt.memory = Planner(opt.graph, fused_groups(opt)).run();
    const MemoryPlan& m = *opt.memory;
    return std::to_string(m.storage_bytes.size()) + " storages; intermediates planned in " + mib(m.planned_bytes) +
           " (" + mib(m.intermediate_bytes) + " without reuse)";
  }
};

}  // namespace

TESSEL_REGISTER_PLUGIN(GraphPass, plan_memory, "static memory planning: values with disjoint lifetimes share storage",
                       {}, [](const PluginParams&) { return std::make_unique<PlanMemory>(); });

}  // namespace tessel::graph
