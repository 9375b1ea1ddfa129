// Recorded sets: loading, checking and saving (search/replay/recorded_set.h).
#include "search/replay/recorded_set.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "search/spaces/workload_spec.h"
#include "support/error.h"
#include "support/output_file.h"
#include "support/install_paths.h"

#ifndef TESSEL_SOURCE_TREE
#define TESSEL_SOURCE_TREE "."
#endif

namespace tessel::search {

namespace {

namespace fs = std::filesystem;

// A trial is stored as one array in this column order, to keep sets small.
const std::vector<std::string> kColumns = {"config_index", "status",  "median_us",   "min_us",    "max_us",
                                           "spread_pct",   "repeats", "max_abs_err", "compile_s", "error"};

nlohmann::json result_row(uint64_t index, const MeasureResult& r) {
  const TimingStats& t = r.timing;
  return {index, status_name(r.status), t.median_us, t.min_us, t.max_us, t.spread_pct, t.repeats,
          r.max_abs_err, r.compile_s, r.error};
}

MeasureResult parse_row(const nlohmann::json& row) {
  if (!row.is_array() || row.size() != kColumns.size()) user_error("a trial is not an array of ", kColumns.size());
  MeasureResult r;
  r.status = parse_status(row[1].get<std::string>());
  r.timing = {row[2].get<double>(), row[3].get<double>(), row[4].get<double>(), row[5].get<double>(),
              row[6].get<int>()};
  r.max_abs_err = row[7].get<double>();
  r.compile_s = row[8].get<double>();
  r.error = row[9].get<std::string>();
  return r;
}

// Every index of [0, n) exactly once, or a UserError naming the first one wrong.
std::vector<MeasureResult> parse_trials(const nlohmann::json& trials, uint64_t space_size) {
  std::vector<MeasureResult> results(space_size);
  std::vector<bool> seen(space_size, false);
  for (const nlohmann::json& row : trials) {
    uint64_t index = row.at(0).get<uint64_t>();
    if (index >= space_size) user_error("configuration ", index, " is outside the space of ", space_size);
    if (seen[index]) user_error("configuration ", index, " is recorded twice");
    seen[index] = true;
    results[index] = parse_row(row);
  }
  for (uint64_t i = 0; i < space_size; ++i)
    if (!seen[i]) user_error("configuration ", i, " of ", space_size, " is missing: a set must cover its whole space");
  return results;
}

RecordedWorkload parse_workload(const nlohmann::json& j) {
  RecordedWorkload w;
  w.workload = j.at("workload").get<std::string>();
  w.space = j.at("space").get<std::string>();
  if (!j.contains("target") || !j.at("target").is_string())
    user_error(w.workload, " (space ", w.space, ") has no \"target\": a set records the target its measurements ",
               "were made for, e.g. \"target\": \"llvm_cpu -isa=avx512\"; add the one it was recorded on");
  w.target = j.at("target").get<std::string>();
  if (j.contains("target_resolved")) {
    if (!j.at("target_resolved").is_string())
      user_error(w.workload, " (space ", w.space, "): \"target_resolved\" must be a target string");
    w.target_resolved = j.at("target_resolved").get<std::string>();
  }
  w.knobs = j.at("knobs");
  w.baseline_name = j.at("baseline").at("name").get<std::string>();
  w.baseline_us = j.at("baseline").at("median_us").get<double>();
  w.provenance = j.value("recorded", nlohmann::json::object());
  try {
    w.results = parse_trials(j.at("trials"), j.at("space_size").get<uint64_t>());
  } catch (const UserError& e) {
    user_error(w.workload, " (space ", w.space, "): ", e.what());
  }
  return w;
}

nlohmann::ordered_json workload_json(const RecordedWorkload& w) {
  nlohmann::json trials = nlohmann::json::array();
  for (uint64_t i = 0; i < w.results.size(); ++i) trials.push_back(result_row(i, w.results[i]));
  nlohmann::ordered_json j = {{"workload", w.workload}, {"space", w.space}, {"target", w.target}};
  if (!w.target_resolved.empty()) j["target_resolved"] = w.target_resolved;
  j["space_size"] = w.results.size();
  j["knobs"] = w.knobs;
  j["baseline"] = {{"name", w.baseline_name}, {"median_us", w.baseline_us}};
  j["recorded"] = w.provenance;
  j["columns"] = kColumns;
  j["trials"] = trials;
  return j;
}

std::vector<fs::path> search_dirs() {
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("TESSEL_RECORDED_DIR")) dirs.emplace_back(env);
  dirs.emplace_back("datasets/recorded");
  if (fs::path installed = installed_data_dir(); !installed.empty()) dirs.push_back(installed / "recorded");
  dirs.emplace_back(fs::path(TESSEL_SOURCE_TREE) / "datasets/recorded");
  return dirs;
}

}  // namespace

Target RecordedWorkload::replay_target() const {
  auto measured = [](std::string text) {
    for (const char* attribute : {" -prefetch=", " -winograd-prefetch="})
      if (text.find(attribute) == std::string::npos) text += std::string(attribute) + "0";
    return Target::parse(text);
  };
  return target_resolved.empty() ? measured(target).with_threads(1) : measured(target_resolved);
}

nlohmann::json RecordedWorkload::describe_space(const ConfigSpace& space) {
  nlohmann::json knobs = nlohmann::json::array();
  for (const Knob& k : space.knobs()) knobs.push_back({{"name", k.name}, {"choices", k.choices}});
  return knobs;
}

RecordedSet RecordedSet::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) user_error("cannot read recorded set '", path, "'");
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("format", "") != kFormat)
    user_error("'", path, "' is not a Tessel recorded set (no \"format\": \"", kFormat, "\")");
  if (j.value("version", 0) != kVersion)
    user_error("recorded set '", path, "' has version ", j.value("version", 0), "; this Tessel reads version ",
               kVersion);
  RecordedSet set(path);
  try {
    for (const nlohmann::json& w : j.at("workloads")) set.put(parse_workload(w));
  } catch (const nlohmann::json::exception& e) {
    user_error("recorded set '", path, "' is malformed: ", e.what());
  } catch (const UserError& e) {
    user_error("recorded set '", path, "': ", e.what());
  }
  return set;
}

namespace {

// The workload key of a name, or the name itself for one this build cannot parse.
std::string key_of(const std::string& workload) {
  try {
    return search::parse_workload(workload).key();  // not the set-file reader above
  } catch (const UserError&) {
    return "name:" + workload;
  }
}

}  // namespace

const RecordedWorkload* RecordedSet::find(const std::string& workload, const std::string& space) const {
  for (const RecordedWorkload& w : workloads_)
    if (w.workload == workload && w.space == space) return &w;
  std::string key = key_of(workload);
  for (const RecordedWorkload& w : workloads_)
    if (w.space == space && key_of(w.workload) == key) return &w;
  return nullptr;
}

bool RecordedSet::contains(const std::string& workload, const std::string& space) const {
  return find(workload, space) != nullptr;
}

const RecordedWorkload& RecordedSet::workload(const std::string& workload, const std::string& space) const {
  if (const RecordedWorkload* w = find(workload, space)) return *w;
  std::vector<std::string> recorded;
  for (const RecordedWorkload& w : workloads_) recorded.push_back(w.workload + " (" + w.space + ")");
  user_error("recorded set '", path_, "' has no workload ", workload, " in space ", space,
             "; it records: ", recorded.empty() ? "nothing" : join_list(recorded));
}

void RecordedSet::put(RecordedWorkload recorded) {
  for (RecordedWorkload& w : workloads_)
    if (w.workload == recorded.workload && w.space == recorded.space) {
      w = std::move(recorded);
      return;
    }
  workloads_.push_back(std::move(recorded));
}

void RecordedSet::save() const {
  nlohmann::ordered_json j = {{"format", kFormat}, {"version", kVersion}, {"workloads", nlohmann::json::array()}};
  for (const RecordedWorkload& w : workloads_) j["workloads"].push_back(workload_json(w));
  write_file_atomically(path_, j.dump() + "\n");
}

std::string resolve_recorded_set(const std::string& set) {
  if (set.empty()) user_error("measure: replay needs a recorded set: replay:<name or path>");
  if (set.find('/') != std::string::npos || fs::path(set).extension() == ".json") {
    if (!fs::exists(set)) user_error("recorded set file '", set, "' does not exist");
    return set;
  }
  std::vector<std::string> looked;
  for (const fs::path& dir : search_dirs()) {
    fs::path candidate = dir / (set + ".json");
    if (fs::exists(candidate)) return candidate.string();
    looked.push_back(candidate.string());
  }
  user_error("no recorded set named '", set, "'; looked for ", join_list(looked));
}

}  // namespace tessel::search
