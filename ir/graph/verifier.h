// The graph verifier: checks the invariants every pass may assume and must keep, so a pass that
// breaks one is caught right after it runs rather than as a wrong result later.
//
// Checked: the graph is acyclic; it has an output, and every input, output and node input refers
// to a live value; each node's inputs match the topology's edges; outputs point back to their
// producer; value and node names are unique; input nodes read nothing and have one output;
// constants hold an array of their value's shape and element type; every operator is registered
// and its outputs have the types it infers for its inputs (shapes, dtypes, layouts); a layout
// names as many dimensions as its value has.
//
//   verify(graph);  // throws UserError listing the problems
#pragma once
#include <string>
#include <vector>

#include "ir/graph/graph.h"

namespace tessel::graph {

// Every problem found, one sentence each naming the node or value; empty if the graph is sound.
std::vector<std::string> find_problems(const Graph& graph);

// Throws UserError with the problems (the first few, and how many more) unless there are none.
void verify(const Graph& graph);

}  // namespace tessel::graph
