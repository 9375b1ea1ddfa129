// Recording a set for replay (search/replay/recorded_set.h): measures the WHOLE schedule space of
// one workload on this machine for a target (the host's by default), in grid order, and writes it
// with the vendor baseline and the target into a recorded set file (`tessel experiment record`). The trials also go to a scratch records
// database, so a killed recording resumes where it stopped instead of starting over.
//
//   RecordRequest r;
//   r.workload = "C9";
//   r.set_path = "datasets/recorded/small_cpu.json";
//   r.measure_baseline = measure_vendor_baseline;   // tools/vendor_baseline.h
//   record_workload(r);
#pragma once
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "search/measure/measurer.h"
#include "search/replay/recorded_set.h"
#include "search/tuner.h"
#include "target/target.h"

namespace tessel::experiments {

struct RecordRequest {
  std::string workload, space = "template";
  Target target = Target::host();  // what is measured; written into the set entry
  std::string set_path;  // created if absent; an existing file must be a recorded set
  std::string db_path;   // scratch records database; empty: set_path + ".records.db"
  search::MeasureOptions measure;
  // The vendor library on the workload; unset: no baseline (name "none", 0 µs).
  std::function<search::Baseline(const search::WorkloadSpec&, int threads, bool flush_cache)> measure_baseline;
  std::string command_line;  // for the provenance
};

// Measures what the scratch database lacks, then adds (or replaces) the workload in the set and
// saves it. Returns what was stored. Throws UserError for bad requests or foreign files.
search::RecordedWorkload record_workload(const RecordRequest& request);

}  // namespace tessel::experiments
