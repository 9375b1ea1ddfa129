// The text of a graph, one node per line, for debugging, error messages and test snapshots:
//
//   graph(%x: float32[1, 3, 8, 8] NCHW) {
//     %w = constant float32[4, 3, 3, 3]
//     %conv = conv2d(%x, %w) {pads=[1, 1, 1, 1], strides=[1, 1]}  // float32[1, 4, 8, 8] NCHW
//     %a, %b = split(%conv) {axis=1, split=[2, 2]}  // float32[1, 2, 8, 8] NCHW, float32[1, 2, 8, 8] NCHW
//     return %a, %b
//   }
//
// Nodes appear in topological order; a constant prints its type, not its data.
#pragma once
#include <ostream>
#include <string>

#include "ir/graph/graph.h"

namespace tessel::graph {

std::string to_string(const Graph& graph);
std::ostream& operator<<(std::ostream& os, const Graph& graph);

}  // namespace tessel::graph
