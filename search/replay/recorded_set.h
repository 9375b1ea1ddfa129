// A recorded set: every configuration of the schedule space of a few workloads, measured once on
// real hardware, stored as one JSON file under datasets/recorded/ (format in docs/experiments.md).
//
// Why whole spaces: replay must be exact. A strategy may propose any configuration of its space,
// so a set that held only some of them would have to invent, skip or re-measure the others, and
// every choice would bend the comparison. Recording the whole space of small workloads (a few
// thousand configurations at most) keeps every answer a real measurement. A set is refused on
// load unless each workload's trials cover its space exactly once, and a replay refuses a task
// whose space (knob names and choices) differs from the recorded one.
//
// Each workload also keeps the vendor baseline measured when it was recorded, so a replayed
// experiment reports the baseline of the same machine and moment as its measurements, and the
// target it was recorded for ("llvm_cpu -isa=avx512"): a template's space depends on the target,
// so replay builds the task's template for the set's target, whatever machine replays it.
//
//   RecordedSet set = RecordedSet::load(resolve_recorded_set("small_cpu"));
//   const RecordedWorkload& w = set.workload("gemm:256", "template");
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "search/measure/measure_result.h"
#include "search/spaces/config_space.h"
#include "target/target.h"

namespace tessel::search {

struct RecordedWorkload {
  std::string workload, space;
  std::string target;                     // Target::key() of what was measured, e.g. "llvm_cpu -isa=avx512"
  std::string target_resolved;            // Target::str() its programs were lowered for; empty if not kept
  nlohmann::json knobs;                   // [{"name", "choices"}...]: the space it was recorded in
  std::string baseline_name;              // "openblas", "onednn"
  double baseline_us = 0;
  nlohmann::json provenance;              // machine, date, command, measure options
  std::vector<MeasureResult> results;     // by configuration index; covers the whole space

  // The knob description of a space, as stored in `knobs`.
  static nlohmann::json describe_space(const ConfigSpace& space);
  // The target a replay builds its task for, so its programs (what a cost model reads) are those
  // that were measured: target_resolved, or, in sets recorded before it was kept, `target` on one
  // thread. Their programs did not depend on the thread count, which today's do only through a
  // pad per thread (ops/window_schedule.h) that one thread does not use. A recorded target
  // without a -prefetch (or -winograd-prefetch) attribute predates that prefetch: it replays with
  // the attribute 0.
  Target replay_target() const;
};

class RecordedSet {
 public:
  static constexpr const char* kFormat = "tessel-recorded-set";
  static constexpr int kVersion = 1;

  // Reads and checks a set file; throws UserError saying what is wrong with it.
  static RecordedSet load(const std::string& path);
  // An empty set (to record into).
  explicit RecordedSet(std::string path) : path_(std::move(path)) {}

  // The workload recorded under this name, or else under another name of the same computation
  // (same workload key: "C6" answers "conv2d:1,128,28,28,128,3,1,1"). Throws UserError listing
  // the recorded workloads if (workload, space) is absent.
  const RecordedWorkload& workload(const std::string& workload, const std::string& space) const;
  bool contains(const std::string& workload, const std::string& space) const;
  // Adds the workload, replacing an earlier recording of the same (workload, space).
  void put(RecordedWorkload recorded);
  // Writes the file (through a temporary file, so a failure never leaves half a set).
  void save() const;

  const std::string& path() const { return path_; }
  const std::vector<RecordedWorkload>& workloads() const { return workloads_; }

 private:
  const RecordedWorkload* find(const std::string& workload, const std::string& space) const;
  std::string path_;
  std::vector<RecordedWorkload> workloads_;
};

// Where `replay:<set>` points: a path to a file (it has a '/' or ends in .json), or the name of a
// file <set>.json in $TESSEL_RECORDED_DIR, ./datasets/recorded/, an installed Tessel's
// share/tessel/recorded/ (support/install_paths.h) or the source tree's datasets/recorded/, first found. Throws UserError naming the places looked at.
std::string resolve_recorded_set(const std::string& set);

}  // namespace tessel::search
