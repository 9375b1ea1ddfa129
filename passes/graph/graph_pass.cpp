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
  return {"fold_batch_norm", "conv_transpose_phases", "fold_constants", "matmul_as_dense", "cse", "dce",
          "layout",          "fuse",                  "fuse_blocks",    "prefetch_weights", "plan_memory"};
}

namespace {

// The entries of a comma list, where commas inside braces belong to an entry's parameters
// ("layout{conv_input_block=producer},fuse"), trimmed, empty ones dropped.
std::vector<std::string> split_entries(const std::string& spec) {
  std::vector<std::string> entries;
  std::string item;
  int depth = 0;
  auto flush = [&] {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) entries.push_back(item);
    item.clear();
  };
  for (char c : spec) {
    depth += c == '{' ? 1 : c == '}' ? -1 : 0;
    if (depth < 0 || depth > 1) user_error("--passes \"", spec, "\": unbalanced braces; write NAME{key=value,...}");
    if (c == ',' && depth == 0) flush();
    else item += c;
  }
  if (depth != 0) user_error("--passes \"", spec, "\": a '{' is not closed; write NAME{key=value,...}");
  flush();
  return entries;
}

}  // namespace

PassEntry parse_pass_entry(const std::string& entry) {
  size_t open = entry.find('{');
  PassEntry pass{entry.substr(0, open), nullptr};
  if (open == std::string::npos) return pass;
  if (entry.back() != '}') user_error("--passes: \"", entry, "\" has text after its parameters; write NAME{key=value,...}");
  std::vector<std::string> assignments;
  std::stringstream in(entry.substr(open + 1, entry.size() - open - 2));
  for (std::string kv; std::getline(in, kv, ',');) assignments.push_back(kv);
  pass.params = parse_param_assignments(assignments, "--passes " + pass.name + "{}");
  return pass;
}

std::vector<std::string> parse_pipeline(const std::string& spec) {
  std::vector<std::string> named, off;
  for (const std::string& item : split_entries(spec)) {
    bool negated = item[0] == '-';
    std::string entry = negated ? item.substr(1) : item;
    PassEntry pass = parse_pass_entry(entry);
    if (negated && !pass.params.is_null()) user_error("--passes: '-", pass.name, "' switches a pass off; it takes no parameters");
    // Checks the name (UserError listing the passes if unknown) and the parameters.
    Registry<GraphPass>::instance().create(pass.name, pass.params);
    (negated ? off : named).push_back(entry);
  }
  std::vector<std::string> pipeline = named.empty() ? default_pipeline() : named;
  for (const std::string& name : off) {
    auto same = [&](const std::string& e) { return parse_pass_entry(e).name == name; };
    if (std::none_of(pipeline.begin(), pipeline.end(), same))
      user_error("--passes: '-", name, "' switches off a pass the pipeline does not have; it runs ",
                 join_list(pipeline));
    std::erase_if(pipeline, same);
  }
  return pipeline;
}

OptimizedGraph optimize_graph(Graph graph, const std::vector<std::string>& pipeline, const Target& target) {
  verify(graph);
  OptimizedGraph g{std::move(graph), target, std::nullopt, std::nullopt, {}, {}};
  for (const std::string& name : pipeline) {
    PassEntry entry = parse_pass_entry(name);
    std::unique_ptr<GraphPass> pass = Registry<GraphPass>::instance().create(entry.name, entry.params);
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
