// Graph optimizers as plugins: a graph pass rewrites a model's dataflow graph (constant folding,
// batch-norm folding, dead-code and common-subexpression elimination) or decides something about
// it that the code generator and the executor then follow (operator fusion: which nodes become
// one kernel; memory planning: which values share a buffer). Each pass is a plugin of kind
// "graph_pass" (listed by `tessel plugins`, loadable out of tree with --plugin like any other);
// a pipeline is a list of pass names, run in order by optimize_graph.
//
//   OptimizedGraph opt = optimize_graph(frontend::import_onnx("resnet18.onnx"),
//                                       parse_pipeline("-fuse"));   // the default minus fusion
//   for (const std::string& line : opt.report) std::cout << line << "\n";
//   opt.graph ...; fused_groups(opt) ...; opt.memory->planned_bytes ...
//
// This folder sits above ops/ in the layer order (docs/architecture.md), not beside
// passes/lower: the passes need the graph operators of ops/graph (their op patterns, their
// tensor expressions to fold constants).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/graph/graph.h"
#include "ir/graph/op.h"
#include "passes/graph/fused_group.h"
#include "passes/graph/memory_plan.h"
#include "target/target.h"

namespace tessel::graph {

// A graph with what the passes so far decided about it. A pass that rewrites the graph calls
// graph_changed(), which drops decisions made about the graph before the rewrite.
struct OptimizedGraph {
  Graph graph;
  Target target = Target::host();  // what the model is compiled for (the layout pass sizes its blocks for it)
  std::optional<std::vector<FusedGroup>> groups;  // set by "fuse"
  std::optional<MemoryPlan> memory;               // set by "plan_memory"
  std::vector<std::string> passes_run;
  std::vector<std::string> report;  // one line per pass: what it did

  void graph_changed() {
    groups.reset();
    memory.reset();
  }
};

class GraphPass {
 public:
  static constexpr const char* kPluginKind = "graph_pass";
  virtual ~GraphPass() = default;
  // Rewrites or annotates `g`; returns one line saying what it did ("folded 20 batch norms").
  virtual std::string run(OptimizedGraph& g) const = 0;
};

// The passes run when none are named, in order: fold_batch_norm, conv_transpose_phases,
// fold_constants, matmul_as_dense, cse, dce, layout, fuse, fuse_blocks, prefetch_weights,
// plan_memory.
std::vector<std::string> default_pipeline();

// A pipeline written as a comma-separated list. Names with a leading '-' switch that pass off;
// a list of only such names means the default pipeline without them ("-fuse,-cse"), otherwise the
// named passes run in the order given ("fold_constants,dce"). A named pass may carry parameters,
// NAME{key=value,...} ("...,layout{conv_input_block=producer},fuse"), checked by the registry.
// An unknown pass name or parameter, or switching off a pass that is not in the pipeline, is a
// UserError listing what is valid. Entries keep their parameters: "layout{...}".
std::vector<std::string> parse_pipeline(const std::string& spec);

// One pipeline entry, "NAME" or "NAME{key=value,...}", split into the pass and its parameters
// (null when none). Throws UserError for malformed parameters.
struct PassEntry {
  std::string name;
  nlohmann::json params;
};
PassEntry parse_pass_entry(const std::string& entry);

// Runs the passes in order on `graph` (verified before and after) for `target`; the report gets
// one line per pass. Throws UserError for an unknown pass or a graph a pass leaves malformed.
OptimizedGraph optimize_graph(Graph graph, const std::vector<std::string>& pipeline = default_pipeline(),
                              const Target& target = Target::host());

// The fused groups of `g` in execution order: those of the "fuse" pass, or, when it did not run,
// one group per operator node.
std::vector<FusedGroup> fused_groups(const OptimizedGraph& g);

// Makes every reader of `from` read `to`, as Graph::replace_all_uses, and when `from` is a graph
// output, `to` takes over its name (graph outputs keep the model's names).
void replace_value(Graph& g, ValueId from, ValueId to);

}  // namespace tessel::graph
