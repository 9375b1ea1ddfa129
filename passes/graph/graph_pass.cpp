// Graph pass pipelines: parsing, running, and the helpers the passes share (passes/graph/graph_pass.h).
#include "passes/graph/graph_pass.h"

#include <algorithm>
#include <chrono>
#include <sstream>

#include "ir/graph/verifier.h"
#include "support/error.h"
#include "support/registry.h"

namespace tessel::graph {

std::vector<std::string> default_pipeline() {
  return {"fold_batch_norm", "fold_constants", "cse", "dce", "layout", "fuse", "plan_memory"};
}

std::vector<std::string> parse_pipeline(const std::string& spec) {
  std::vector<std::string> named, off;
  std::stringstream in(spec);
  for (std::string item; std::getline(in, item, ',');) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item.empty()) continue;
    bool negated = item[0] == '-';
    std::string name = negated ? item.substr(1) : item;
    Registry<GraphPass>::instance().info(name);  // UserError listing the passes if unknown
    (negated ? off : named).push_back(name);
  }
  std::vector<std::string> pipeline = named.empty() ? default_pipeline() : named;
  for (const std::string& name : off) {
    if (std::find(pipeline.begin(), pipeline.end(), name) == pipeline.end())
      user_error("--passes: '-", name, "' switches off a pass the pipeline does not have; it runs ",
                 join_list(pipeline));
    std::erase(pipeline, name);
  }
  return pipeline;
}

OptimizedGraph optimize_graph(Graph graph, const std::vector<std::string>& pipeline, const Target& target) {
  verify(graph);
  OptimizedGraph g{std::move(graph), target, std::nullopt, std::nullopt, {}, {}};
  for (const std::string& name : pipeline) {
    std::unique_ptr<GraphPass> pass = Registry<GraphPass>::instance().create(name);
    auto start = std::chrono::steady_clock::now();
    std::string what = pass->run(g);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::vector<std::string> problems = find_problems(g.graph);
    if (!problems.empty()) user_error("graph pass '", name, "' left a malformed graph: ", problems.front());
    g.passes_run.push_back(name);
    std::ostringstream line;
    line.precision(3);
    line << name << ": " << what << " (" << ms << " ms)";
    g.report.push_back(line.str());
  }
  return g;
}

std::vector<FusedGroup> fused_groups(const OptimizedGraph& g) {
  if (g.groups) return *g.groups;
  std::vector<FusedGroup> groups;
  for (NodeId n : g.graph.topological_order())
    if (g.graph.node(n).is_operator()) groups.push_back(make_group(g.graph, {n}));
  return groups;
}

void replace_value(Graph& g, ValueId from, ValueId to) {
  bool output = g.is_output(from);
  g.replace_all_uses(from, to);
  if (!output) return;
  std::string name = g.value(from).name;
  g.rename_value(from, g.unique_value_name(name + ".replaced"));
  g.rename_value(to, name);
}

}  // namespace tessel::graph
