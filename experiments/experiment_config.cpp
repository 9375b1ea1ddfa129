// Loading, validating and expanding experiment configs (experiments/experiment_config.h).
#include "experiments/experiment_config.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "backends/backend.h"
#include "costmodels/cost_model.h"
#include "passes/graph/graph_pass.h"
#include "search/measure/measurer.h"
#include "search/replay/recorded_set.h"
#include "search/spaces/schedule_template.h"
#include "search/spaces/workload_spec.h"
#include "search/strategy_factory.h"
#include "search/task/task.h"
#include "support/error.h"
#include "support/limits.h"
#include "support/registry.h"

namespace tessel::experiments {

namespace {

// The keys any of which may be a list (a grid axis), and the others.
const std::vector<std::string> kGridKeys = {"workloads", "space",   "strategy", "cost_model",    "trials",
                                            "backend",   "measure", "batch",    "transfer_from", "target",
                                            "cache_flush"};
const std::vector<std::string> kScalarKeys = {"name",    "description", "seeds", "repeats",
                                              "threads", "timeout",     "select", "plugin_timeout"};

// Carries the file name so every message can say where.
struct Reader {
  std::string path;

  template <typename... Parts>
  [[noreturn]] void fail(const YAML::Node& node, const Parts&... parts) const {
    YAML::Mark m = node.Mark();
    if (m.is_null()) user_error(path, ": ", parts...);
    user_error(path, ":", m.line + 1, ":", m.column + 1, ": ", parts...);
  }

  std::string string(const YAML::Node& node, const std::string& what) const {
    if (!node.IsScalar()) fail(node, what, " must be a string");
    return node.Scalar();
  }

  // An unquoted scalar's text: a quoted one ('5') or a list is not a number.
  std::string plain_scalar(const YAML::Node& node, const std::string& what) const {
    if (!node.IsScalar() || node.Tag() == "!")
      fail(node, what, " must be a number, got ",
           node.IsScalar() ? "'" + node.Scalar() + "' (quoted)" : std::string("a list or mapping"));
    return node.Scalar();
  }

  // Runs `read`, prefixing its UserError with the node's place.
  template <typename Read>
  auto checked(const YAML::Node& node, const Read& read) const {
    try {
      return read();
    } catch (const UserError& e) {
      fail(node, e.what());
    }
  }

  // Numbers follow support/limits.h: one parser and one range per kind, as on the command line.
  int64_t integer(const YAML::Node& node, const std::string& what, const Allowed& allowed) const {
    std::string text = plain_scalar(node, what);
    return checked(node, [&] { return parse_integer(what, text, allowed); });
  }

  bool boolean(const YAML::Node& node, const std::string& what) const {
    std::string text = node.IsScalar() && node.Tag() != "!" ? node.Scalar() : "";
    if (text != "true" && text != "false") fail(node, what, " must be true or false");
    return text == "true";
  }

  double number(const YAML::Node& node, const std::string& what, const Allowed& allowed) const {
    std::string text = plain_scalar(node, what);
    return checked(node, [&] { return parse_number(what, text, allowed); });
  }
};

// A YAML scalar as the JSON value a plugin parameter expects: quoted scalars stay strings, plain
// ones become integers, numbers or booleans when they read as such, by the rule `--param` follows
// (support/limits.h typed_scalar).
nlohmann::json scalar_json(const YAML::Node& node) {
  return node.Tag() == "!" ? nlohmann::json(node.Scalar()) : typed_scalar(node.Scalar());
}

// The alternatives of a grid key: the elements of a list, or the value itself.
std::vector<YAML::Node> alternatives(const Reader& r, const YAML::Node& node, const std::string& key) {
  if (!node.IsSequence()) return {node};
  if (node.size() == 0) r.fail(node, "'", key, "' is an empty list; give at least one value");
  std::vector<YAML::Node> out(node.begin(), node.end());
  return out;
}

template <typename Interface>
PluginChoice plugin(const Reader& r, const YAML::Node& node, const std::string& key) {
  PluginChoice choice;
  if (node.IsScalar()) {
    choice.name = node.Scalar();
  } else if (node.IsMap()) {
    for (const auto& kv : node) {
      std::string k = r.string(kv.first, "a key");
      if (k != "name" && k != "params")
        r.fail(kv.first, "unknown key '", k, "' in ", key, "; valid keys: name, params");
    }
    if (!node["name"]) r.fail(node, key, " needs a name: {name: ..., params: {...}}");
    choice.name = r.string(node["name"], key + " name");
  } else {
    r.fail(node, key, " must be a plugin name or {name: ..., params: {...}}");
  }
  // (Copied, not assigned: assigning a YAML::Node rebinds it, and throws for an absent key's node.)
  YAML::Node params = node.IsMap() ? node["params"] : YAML::Node();
  if (params && !params.IsNull()) {
    if (!params.IsMap()) r.fail(params, "params of ", key, " must be a mapping of name to value");
    for (const auto& kv : params) {
      if (!kv.second.IsScalar()) r.fail(kv.second, "parameter '", kv.first.Scalar(), "' must be a single value");
      choice.params[r.string(kv.first, "a parameter name")] = scalar_json(kv.second);
    }
  }
  try {
    PluginParams(Registry<Interface>::instance().info(choice.name), choice.params);
  } catch (const UserError& e) {
    r.fail(node, e.what());
  }
  return choice;
}

// A value of each grid key, with the node it came from (for messages).
struct Point {
  std::map<std::string, YAML::Node> nodes;
};

class Loader {
 public:
  Loader(std::string path, YAML::Node root, std::string default_target)
      : r_{std::move(path)}, root_(std::move(root)), default_target_(std::move(default_target)) {}

  ExperimentConfig load() {
    if (!root_.IsMap()) r_.fail(root_, "an experiment config must be a mapping of keys (name, workloads, ...)");
    check_keys();
    ExperimentConfig config;
    config.path = r_.path;
    read_scalars(config);
    check_grid_size(config.seeds.size());
    std::vector<Point> points = {Point{}};
    for (const std::string& key : kGridKeys) points = expand(points, key);
    std::set<std::pair<std::string, std::string>> seen;
    for (const Point& p : points) {
      Configuration c = configuration(p);
      if (seen.insert({c.workload, c.label}).second) config.configurations.push_back(std::move(c));
    }
    check_cost_model_used(config);
    return config;
  }

 private:
  void check_keys() const {
    std::vector<std::string> valid = kGridKeys;
    valid.insert(valid.end(), kScalarKeys.begin(), kScalarKeys.end());
    for (const auto& kv : root_) {
      std::string key = r_.string(kv.first, "a key");
      if (std::find(valid.begin(), valid.end(), key) == valid.end())
        r_.fail(kv.first, "unknown key '", key, "'; valid keys: ", join_list(valid));
    }
    if (!root_["name"]) r_.fail(root_, "the config has no 'name'");
    if (!root_["workloads"]) r_.fail(root_, "the config has no 'workloads'");
  }

  // Refuses a grid of more runs than limits::kMaxGridRuns before expanding it, naming its size and
  // pointing at its longest list.
  void check_grid_size(size_t seeds) const {
    double runs = static_cast<double>(seeds);
    std::string factors;
    std::string longest;  // (a key: assigning a YAML::Node would rebind the node it refers to)
    size_t longest_size = 0;
    for (const std::string& key : kGridKeys) {
      YAML::Node node = root_[key];
      if (!node || !node.IsSequence()) continue;
      runs *= static_cast<double>(node.size());
      factors += key + " " + std::to_string(node.size()) + " x ";
      if (node.size() > longest_size) longest = key, longest_size = node.size();
    }
    if (runs <= static_cast<double>(limits::kMaxGridRuns)) return;
    std::ostringstream size;
    size << std::fixed << std::setprecision(0) << runs;
    r_.fail(root_[longest], "the config's grid has ", size.str(), " runs (", factors, "seeds ", seeds, "); at most ",
            limits::kMaxGridRuns, " runs per experiment: split it into several configs");
  }

  void read_scalars(ExperimentConfig& config) const {
    config.name = r_.string(root_["name"], "name");
    if (config.name.empty() || config.name.find_first_of("/\\ ") != std::string::npos)
      r_.fail(root_["name"], "name must be a non-empty word without '/' or spaces");
    if (root_["description"]) config.description = r_.string(root_["description"], "description");
    if (YAML::Node seeds = root_["seeds"]) {
      config.seeds.clear();
      for (const YAML::Node& s : alternatives(r_, seeds, "seeds")) {
        int64_t seed = r_.integer(s, "a seed", limits::seed());
        if (std::find(config.seeds.begin(), config.seeds.end(), seed) != config.seeds.end())
          r_.fail(s, "seed ", seed, " is listed twice");
        config.seeds.push_back(seed);
      }
    }
    if (root_["repeats"]) config.measure.repeats = static_cast<int>(r_.integer(root_["repeats"], "repeats", limits::repeats()));
    if (root_["threads"]) config.measure.threads = static_cast<int>(r_.integer(root_["threads"], "threads", limits::threads()));
    if (root_["timeout"]) config.measure.timeout_s = r_.number(root_["timeout"], "timeout", limits::timeout_s());
    if (root_["select"]) config.measure.select = static_cast<int>(r_.integer(root_["select"], "select", limits::select()));
    if (root_["plugin_timeout"])
      config.measure.plugin_timeout_s = r_.number(root_["plugin_timeout"], "plugin_timeout", limits::timeout_s());
  }

  std::vector<Point> expand(const std::vector<Point>& points, const std::string& key) {
    YAML::Node node = root_[key];
    if (!node) return points;
    std::vector<YAML::Node> values = alternatives(r_, node, key);
    if (values.size() > 1) varied_.insert(key);
    std::vector<Point> out;
    for (const Point& p : points)
      for (const YAML::Node& v : values) {
        Point q = p;
        q.nodes[key] = v;
        out.push_back(std::move(q));
      }
    return out;
  }

  Configuration configuration(const Point& p) const {
    auto node = [&](const std::string& key) {
      return p.nodes.count(key) ? p.nodes.at(key) : YAML::Node(YAML::NodeType::Undefined);  // absent: not defined
    };
    Configuration c;
    YAML::Node w = node("workloads");
    c.workload = r_.string(w, "a workload");
    c.space.name = "template";
    c.strategy.name = "random";
    c.cost_model.name = "none";
    if (YAML::Node n = node("space")) c.space = plugin<search::ScheduleSpace>(r_, n, "space");
    if (YAML::Node n = node("strategy")) c.strategy = plugin<search::SearchStrategy>(r_, n, "strategy");
    if (YAML::Node n = node("cost_model"); n && !(n.IsScalar() && n.Scalar() == "none"))
      c.cost_model = plugin<CostModel>(r_, n, "cost_model");
    // The target names the back end; a config that names only the back end targets the host with it.
    c.target = default_target_;
    if (YAML::Node n = node("target")) c.target = r_.string(n, "target");
    if (YAML::Node n = node("backend")) c.backend = plugin<Backend>(r_, n, "backend");
    if (node("backend") && !node("target")) c.target = c.backend.name;
    if (!node("backend")) c.backend.name = target_kind(c, node("target") ? node("target") : w);
    if (YAML::Node n = node("trials")) c.trials = r_.integer(n, "trials", limits::trials());
    if (YAML::Node n = node("batch")) c.batch = r_.integer(n, "batch", limits::batch());
    if (YAML::Node n = node("measure")) c.measure = r_.string(n, "measure");
    if (YAML::Node n = node("cache_flush")) c.cache_flush = r_.boolean(n, "cache_flush");
    if (YAML::Node n = node("transfer_from"); n && r_.string(n, "transfer_from") != "none")
      c.transfer_from = n.Scalar();
    check_target(c, node("target") ? node("target") : w);
    check_workload(c, w);
    check_strategy(c, node("strategy") ? node("strategy") : w);
    check_measure(c, node("measure") ? node("measure") : w);
    if (c.cache_flush && c.measure != "hardware")
      r_.fail(node("cache_flush"), "cache_flush applies to measure: hardware; a replayed set answers with the times "
              "it recorded");
    c.label = label(c);
    return c;
  }

  // The kind of the configuration's target: the back end it names, unless `backend:` says otherwise.
  std::string target_kind(const Configuration& c, const YAML::Node& at) const {
    try {
      return Target::parse(c.target).kind();
    } catch (const UserError& e) {
      r_.fail(at, e.what());
    }
  }

  // A target the back end does not generate code for, or (measured on this machine) one the host
  // cannot run, is refused before anything runs.
  void check_target(const Configuration& c, const YAML::Node& at) const {
    Target target = Target::parse(c.target);
    if (target.kind() != c.backend.name)
      r_.fail(at, "target '", c.target, "' is for the back end '", target.kind(), "' but the configuration's backend is '",
              c.backend.name, "'; name one back end (the target's kind), or leave backend out");
    if (c.measure != "hardware") return;
    try {
      target.check_runs_here("experiment");
    } catch (const UserError& e) {
      r_.fail(at, e.what());
    }
  }

  void check_workload(const Configuration& c, const YAML::Node& at) const {
    try {
      search::Task::create(c.workload, c.space.name, c.space.params, Target::parse(c.target));
    } catch (const UserError& e) {
      r_.fail(at, e.what(), split_shape_hint(c.workload));
    }
  }

  // In a flow list, [conv2d:1,64,56,56,64,3,1,1] is eight items: "conv2d:1", "64", ... When a bad
  // workload looks like such a piece, the message says to quote the shape.
  std::string split_shape_hint(const std::string& workload) const {
    if (!root_["workloads"].IsSequence()) return "";
    size_t colon = workload.find(':');
    std::string kind = colon == std::string::npos ? "" : workload.substr(0, colon);
    bool piece = colon == std::string::npos ? read_integer(workload).has_value()
                                            : kind != "gemm" && read_integer(workload.substr(colon + 1)).has_value();
    if (!piece) return "";
    return "; a shape inside a YAML list must be quoted, since its commas separate the list's items: "
           "workloads: ['conv2d:1,64,56,56,64,3,1,1', C6]";
  }

  // A cost model that no strategy of the grid ranks with would be ignored by every run: refused.
  // (In a grid that has one, e.g. [random, model_based], random runs without it, as documented.)
  void check_cost_model_used(const ExperimentConfig& config) const {
    auto given = [](const Configuration& c) { return !c.cost_model.name.empty() && c.cost_model.name != "none"; };
    auto used = [](const Configuration& c) { return c.cost_model_used != "none"; };
    const auto& all = config.configurations;
    auto ignored = std::find_if(all.begin(), all.end(), given);
    if (ignored == all.end() || std::any_of(all.begin(), all.end(), used)) return;
    r_.fail(root_["cost_model"], "no strategy of this config ranks candidates with a cost model, so cost_model '",
            ignored->cost_model.name, "' would be ignored; remove cost_model, or add a strategy that uses one ",
            "(model_based)");
  }

  void check_strategy(Configuration& c, const YAML::Node& at) const {
    search::StrategyChoice choice{c.strategy.name, c.strategy.params, c.cost_model.name, c.cost_model.params, 0,
                                  c.transfer_from};
    try {
      search::create_strategy(choice);
      c.cost_model_used = search::effective_cost_model(choice);
    } catch (const UserError& e) {
      r_.fail(at, e.what());
    }
  }

  void check_measure(const Configuration& c, const YAML::Node& at) const {
    if (c.measure == "hardware") return;
    if (c.measure.rfind("replay:", 0) != 0)
      r_.fail(at, "measure must be 'hardware' or 'replay:<recorded set>', got '", c.measure, "'");
    try {
      std::string path = search::resolve_recorded_set(c.measure.substr(7));
      if (!sets_.count(path)) sets_.emplace(path, search::RecordedSet::load(path));
      sets_.at(path).workload(c.workload, c.space.name);
    } catch (const UserError& e) {
      r_.fail(at, e.what());
    }
  }

  std::string label(const Configuration& c) const {
    std::string out = c.strategy.label();
    if (c.cost_model_used != "none") out += "+" + c.cost_model.label();
    auto add = [&](const std::string& key, const std::string& value) {
      if (varied_.count(key)) out += " " + key + "=" + value;
    };
    add("space", c.space.label());
    add("trials", std::to_string(c.trials));
    // The back end also names a configuration it does not vary in when it is not the default, since
    // the label keys the run's records: other generated code must not resume it.
    std::string backend = search::backend_label(c.backend.name, c.backend.params);
    if (varied_.count("backend") || !backend.empty()) out += " backend=" + (backend.empty() ? c.backend.name : backend);
    add("target", c.target);
    add("measure", c.measure);
    add("batch", std::to_string(c.batch));
    add("transfer_from", c.transfer_from.empty() ? "none" : c.transfer_from);
    // Like the back end: times measured cold must not resume a run measured hot.
    if (varied_.count("cache_flush") || c.cache_flush) out += c.cache_flush ? " cache_flush=true" : " cache_flush=false";
    return out;
  }

  Reader r_;
  YAML::Node root_;
  std::string default_target_;
  std::set<std::string> varied_;
  mutable std::map<std::string, search::RecordedSet> sets_;  // each set file loaded once
};

// yaml-cpp keeps every entry of a mapping whose key repeats: node["key"] finds the first, while
// iterating (as params are read) sees the last. So a key given twice is refused, wherever it is.
// `visited` holds the positions of the collections checked, so an alias is checked once.
void check_unique_keys(const Reader& r, const YAML::Node& node, std::set<size_t>& visited) {
  if (!node.IsMap() && !node.IsSequence()) return;
  if (!visited.insert(node.Mark().pos).second) return;
  if (node.IsSequence()) {
    for (const YAML::Node& item : node) check_unique_keys(r, item, visited);
    return;
  }
  std::map<std::string, int> first_line;
  for (const auto& kv : node) {
    if (kv.first.IsScalar()) {
      auto [earlier, fresh] = first_line.emplace(kv.first.Scalar(), kv.first.Mark().line + 1);
      if (!fresh)
        r.fail(kv.first, "key '", kv.first.Scalar(), "' is given twice (first on line ", earlier->second,
               "); give each key once");
    }
    check_unique_keys(r, kv.second, visited);
  }
}

nlohmann::json yaml_json(const YAML::Node& node) {
  if (node.IsMap()) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& kv : node) j[kv.first.Scalar()] = yaml_json(kv.second);
    return j;
  }
  if (node.IsSequence()) {
    nlohmann::json j = nlohmann::json::array();
    for (const YAML::Node& e : node) j.push_back(yaml_json(e));
    return j;
  }
  return node.IsScalar() ? scalar_json(node) : nlohmann::json();
}

const std::vector<std::string> kModelKeys = {"name",    "description", "workloads", "graph_passes",
                                             "records", "threads",     "repeats",   "rounds"};
constexpr const char* kModelPrefix = "model:";

bool is_model_workload(const YAML::Node& w) { return w.IsScalar() && w.Scalar().rfind(kModelPrefix, 0) == 0; }

bool is_model_config(const YAML::Node& root) {
  if (!root.IsMap() || !root["workloads"]) return false;
  YAML::Node w = root["workloads"];
  return w.IsSequence() ? std::any_of(w.begin(), w.end(), [](const YAML::Node& n) { return is_model_workload(n); })
                        : is_model_workload(w);
}

// A model experiment: workloads × graph_passes × records × threads, checked before anything runs.
class ModelLoader {
 public:
  ModelLoader(std::string path, YAML::Node root) : r_{std::move(path)}, root_(std::move(root)) {}

  ExperimentConfig load() const {
    for (const auto& kv : root_) {
      std::string key = r_.string(kv.first, "a key");
      if (std::find(kModelKeys.begin(), kModelKeys.end(), key) == kModelKeys.end())
        r_.fail(kv.first, "unknown key '", key, "' in a model experiment; valid keys: ", join_list(kModelKeys));
    }
    ExperimentConfig config;
    config.path = r_.path;
    if (!root_["name"]) r_.fail(root_, "the config has no 'name'");
    config.name = r_.string(root_["name"], "name");
    if (root_["description"]) config.description = r_.string(root_["description"], "description");
    if (root_["repeats"])
      config.measure.repeats = static_cast<int>(r_.integer(root_["repeats"], "repeats", limits::repeats()));
    if (root_["rounds"])
      config.measure.rounds = static_cast<int>(r_.integer(root_["rounds"], "rounds", limits::repeats()));
    std::vector<std::string> passes = list("graph_passes", {""}), records = list("records", {"none"});
    std::vector<YAML::Node> threads = root_["threads"] ? alternatives(r_, root_["threads"], "threads")
                                                       : std::vector<YAML::Node>{YAML::Node("2")};
    for (const YAML::Node& w : alternatives(r_, root_["workloads"], "workloads"))
      for (const std::string& p : passes)
        for (const std::string& db : records)
          for (const YAML::Node& t : threads) {
            ModelConfiguration m;
            m.model = model_path(w);
            m.graph_passes = p == "none" ? "plan_memory" : p;
            m.records = db == "none" ? "" : db;
            m.threads = static_cast<int>(r_.integer(t, "threads", limits::threads()));
            m.label = "passes=" + (p.empty() ? std::string("all") : p) + (db == "none" ? "" : " tuned=" + db) +
                      " threads=" + std::to_string(m.threads);
            config.models.push_back(m);
          }
    if (config.models.size() > static_cast<size_t>(limits::kMaxGridRuns))
      r_.fail(root_, "the config has ", config.models.size(), " model runs; at most ", limits::kMaxGridRuns);
    return config;
  }

 private:
  // The strings of a list key, each checked: pipelines parse, records databases exist.
  std::vector<std::string> list(const std::string& key, std::vector<std::string> fallback) const {
    if (!root_[key]) return fallback;
    std::vector<std::string> out;
    for (const YAML::Node& n : alternatives(r_, root_[key], key)) {
      std::string value = n.IsNull() ? "" : r_.string(n, key);
      if (key == "graph_passes" && value != "none") r_.checked(n, [&] { return graph::parse_pipeline(value); });
      if (key == "records" && value != "none" && !std::filesystem::is_regular_file(value))
        r_.fail(n, "records database '", value, "' does not exist; make it with tessel tune-model MODEL --db ", value);
      out.push_back(value);
    }
    return out;
  }

  std::string model_path(const YAML::Node& w) const {
    if (!is_model_workload(w))
      r_.fail(w, "a model experiment's workloads must all be model:PATH.onnx; measure operators in another config");
    std::string path = w.Scalar().substr(std::string(kModelPrefix).size());
    if (!std::filesystem::is_regular_file(path))
      r_.fail(w, "model '", path, "' does not exist (paths are relative to the working directory; the build exports "
                 "the test models into build/models)");
    return path;
  }

  Reader r_;
  YAML::Node root_;
};

}  // namespace

nlohmann::json ModelConfiguration::to_json() const {
  return {{"label", label}, {"model", model}, {"graph_passes", graph_passes}, {"records", records}, {"threads", threads}};
}

std::string PluginChoice::label() const { return plugin_label(name, params); }

nlohmann::json PluginChoice::to_json() const { return {{"name", name}, {"params", params}}; }

nlohmann::json Configuration::to_json() const {
  nlohmann::json model = cost_model_used == "none" ? nlohmann::json("none") : cost_model.to_json();
  return {{"label", label},
          {"workload", workload},
          {"space", space.to_json()},
          {"strategy", strategy.to_json()},
          {"cost_model", model},
          {"backend", backend.to_json()},
          {"target", target},
          {"trials", trials},
          {"batch", batch},
          {"measure", measure},
          {"cache_flush", cache_flush},
          {"transfer_from", transfer_from.empty() ? "none" : transfer_from}};
}

ExperimentConfig ExperimentConfig::parse(const std::string& text, const std::string& path,
                                         const std::string& default_target) {
  if (text.size() > static_cast<size_t>(limits::kMaxConfigBytes))
    user_error(path, ": the config is larger than ", limits::kMaxConfigBytes,
               " bytes, the most an experiment config may have; split it into several configs");
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    user_error(path, ":", e.mark.line + 1, ":", e.mark.column + 1, ": malformed YAML: ", e.msg);
  }
  std::set<size_t> visited;
  check_unique_keys(Reader{path}, root, visited);
  ExperimentConfig config =
      is_model_config(root) ? ModelLoader(path, root).load() : Loader(path, root, default_target).load();
  config.source = yaml_json(root);
  return config;
}

ExperimentConfig ExperimentConfig::load(const std::string& path, const std::string& default_target) {
  std::ifstream in(path);
  if (!in) user_error("cannot read experiment config '", path, "'");
  // One byte beyond the limit is enough for parse() to refuse the file, however large it is.
  std::string text(static_cast<size_t>(limits::kMaxConfigBytes) + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  return parse(text, path, default_target);
}

std::vector<RunSpec> ExperimentConfig::runs() const {
  std::vector<RunSpec> out;
  for (size_t c = 0; c < configurations.size(); ++c)
    for (int64_t seed : seeds) out.push_back({c, seed});
  return out;
}

}  // namespace tessel::experiments
