// The tuning tasks of a model: one per distinct group workload (compiler/anchor_workload.h: the
// anchor's, or a fused block's chain) among its fused groups, found by workload key, weighted by how many groups run it; what `tessel
// tune-model` spends its trials on and what `tessel compile --records` then looks up.
//
//   graph::OptimizedGraph opt = graph::optimize_graph(frontend::import_onnx("resnet18.onnx"));
//   for (const search::WeightedTask& t : model_tasks(opt, Target::host()))
//     std::cout << t.task.workload().name << " x" << t.weight << "\n";   // conv2d:1,64,56,56,64,3,1,1 x4
#pragma once
#include <string>
#include <vector>

#include "passes/graph/graph_pass.h"
#include "search/task_tuning.h"
#include "target/target.h"

namespace tessel {

// The tasks of `opt`'s fused groups (one per operator when "fuse" did not run) in the template
// space for `target`, in the order their first group comes in the graph. A workload whose template
// cannot be made for the target, or cannot schedule its group at any configuration (so that no
// record of it would apply: a dense_packed group packed in a panel width the GEMM template lacks),
// is left out with a note: on stderr, or appended to `notes` when given.
std::vector<search::WeightedTask> model_tasks(const graph::OptimizedGraph& opt, const Target& target,
                                              std::vector<std::string>* notes = nullptr);

// `g` optimized by `pipeline` for `target` on each of `thread_counts` threads, in that order (the
// passes size blocks and shares for the threads, so each count may group the graph differently:
// fuse_blocks merges more blocks on several threads). Throws UserError for a count below 1 before
// optimizing any.
std::vector<graph::OptimizedGraph> optimize_at_thread_counts(const graph::Graph& g,
                                                             const std::vector<std::string>& pipeline,
                                                             const Target& target,
                                                             const std::vector<int>& thread_counts);

// The tasks of optimize_at_thread_counts' graphs, made for `target` itself and merged by workload
// key in the order they first come, each weighted by the most groups running it at one count.
// Notes as for model_tasks, each once.
std::vector<search::WeightedTask> model_tasks_at_thread_counts(const graph::Graph& g,
                                                               const std::vector<std::string>& pipeline,
                                                               const Target& target,
                                                               const std::vector<int>& thread_counts,
                                                               std::vector<std::string>* notes = nullptr);

}  // namespace tessel
