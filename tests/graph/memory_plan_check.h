// The property a memory plan must have, checked by the pass tests and the model tests: every
// value computed at run time has storage at least its size, and two values sharing a storage are
// never live at once (the later one is written after the last read of the earlier one, in the
// order the groups run).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "passes/graph/graph_pass.h"

namespace tessel::test {

inline std::vector<std::string> memory_plan_problems(const graph::OptimizedGraph& opt) {
  using namespace graph;
  const Graph& g = opt.graph;
  const MemoryPlan& m = opt.memory.value();
  std::vector<FusedGroup> groups = fused_groups(opt);
  std::map<NodeId, int> step_of;
  for (size_t s = 0; s < groups.size(); ++s)
    for (NodeId n : groups[s].nodes) step_of[n] = static_cast<int>(s);
  struct Life {
    ValueId value;
    int first, last;
  };
  std::map<int, std::vector<Life>> by_storage;
  std::vector<std::string> problems;
  for (size_t s = 0; s < groups.size(); ++s) {
    for (ValueId v : groups[s].outputs) {
      auto it = m.storage_of.find(v);
      if (it == m.storage_of.end()) {
        problems.push_back("no storage for " + g.value(v).name);
        continue;
      }
      if (m.storage_bytes.at(it->second) < g.value(v).type.numel() * g.value(v).type.dtype.bytes())
        problems.push_back("storage too small for " + g.value(v).name);
      int last = g.is_output(v) ? static_cast<int>(groups.size()) : static_cast<int>(s);
      for (const Use& u : g.users(v)) last = std::max(last, step_of.at(u.node));
      by_storage[it->second].push_back({v, static_cast<int>(s), last});
    }
  }
  for (const auto& [storage, lives] : by_storage)
    for (size_t i = 0; i < lives.size(); ++i)
      for (size_t j = i + 1; j < lives.size(); ++j)
        if (!(lives[j].first > lives[i].last || lives[i].first > lives[j].last))
          problems.push_back(g.value(lives[i].value).name + " and " + g.value(lives[j].value).name +
                             " share storage " + std::to_string(storage) + " while both live");
  return problems;
}

}  // namespace tessel::test
