// `tessel bench --tuned DB`: Tessel's side of a benchmark case compiled with the best configuration
// a tuning database holds for the workload (template space), instead of the ops/ default schedule,
// so tuned results are re-measured under the benchmark's protocol (baseline alternating in the same
// process) rather than quoted from the tuner's records.
#pragma once
#include <string>

#include "benchmarks/bench_runner.h"
#include "search/records/records_db.h"

namespace tessel::tools {

// What a records database says to run for each tuned workload, read once per command.
struct TunedChoices {
  std::string db_path;
  std::vector<search::SelectionRecord> chosen;  // RecordsDb::chosen_per_task()
  std::vector<search::TrialRecord> best;        // RecordsDb::best_per_task()

  static TunedChoices read(const std::string& db_path);
};

// The tuned schedule of `workload` (a tuning workload name: C6, D3, gemm:1024, conv2d:...) in the
// template space for `target`: the configuration a final selection chose (search/selection.h),
// else the fastest correct trial; labelled "tuned#<config index>" ("…:default" when the selection
// chose the template's default configuration). The default schedule, with a note on stderr, when
// the database has neither. Throws UserError when the recorded configuration no longer fits the
// target's template (e.g. the template changed since the database was written, or the records
// were tuned for another target).
TesselSchedule tuned_schedule(const TunedChoices& choices, const std::string& workload, const Target& target);

}  // namespace tessel::tools
