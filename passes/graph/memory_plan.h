// The static memory plan of a graph: every value computed at run time (the outputs of the fused
// groups) gets a storage id; values whose lifetimes do not overlap share one, so a network needs a
// few buffers sized for its largest layers instead of one per intermediate tensor. Graph inputs
// and outputs get storage of their own (callers hand them in and keep them); constants are
// parameters, not planned.
#pragma once
#include <cstdint>
#include <map>
#include <vector>

#include "ir/graph/graph.h"

namespace tessel::graph {

struct MemoryPlan {
  std::vector<int64_t> storage_bytes;  // size of each storage id
  std::map<ValueId, int> storage_of;   // every planned value (inputs, group outputs)
  std::vector<bool> storage_is_io;     // whether a storage holds a graph input or output
  int64_t planned_bytes = 0;           // sum of the intermediate (non-input/output) storages
  int64_t intermediate_bytes = 0;      // sum of the intermediate values, each in its own buffer
};

}  // namespace tessel::graph
