// The analysis behind program features: one walk over a lowered function that records its loops,
// its bodies (stores grouped by innermost enclosing loop), each buffer access with its strides
// per enclosing loop, and arithmetic counts. costmodels/features.cpp turns this into numbers.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/stmt.h"

namespace tessel::features_detail {

struct ChildRef {
  bool is_loop;
  int index;  // into LoopSummary::loops or ::bodies
};

struct SummaryLoop {
  int64_t extent;
  bool parallel;
  std::vector<ChildRef> children;  // program order
};

// Operation counts of one execution of a body, lanes included.
struct OpCounts {
  double float_add = 0, float_mul = 0, float_fma = 0, float_other = 0, math_calls = 0, int_ops = 0;
  double float_ops() const { return float_add + float_mul + 2 * float_fma + float_other; }
};

struct Access {
  int buffer;  // into LoopSummary::buffers
  bool is_store;
  int lanes;
  double vector_stride;         // between lanes, in elements
  std::vector<double> strides;  // per loop of the body's path, outermost first
  int64_t offset;               // the constant term of the index
  bool affine;                  // the index is linear in loop variables
};

struct Body {
  std::vector<int> path;  // enclosing loops, outermost first
  std::vector<Access> accesses;
  OpCounts ops;
  int stores = 0, loads = 0, guards = 0, lanes = 1;
  double trips = 1;  // executions: the product of the path's extents
};

struct BufferFacts {
  std::string name;
  int element_bytes;
  bool local;
  double elements;
};

struct LoopSummary {
  std::vector<SummaryLoop> loops;
  std::vector<Body> bodies;
  std::vector<BufferFacts> buffers;
  std::vector<ChildRef> top;  // children of the function, program order
  double local_alloc_bytes = 0;
  int local_allocs = 0;
};

LoopSummary summarize_loops(const LoweredFunc& func);

}  // namespace tessel::features_detail
