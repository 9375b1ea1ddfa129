// `tessel bench --tuned DB`: Tessel's side of a benchmark case compiled with the best configuration
// a tuning database holds for the workload (template space), instead of the ops/ default schedule,
// so tuned results are re-measured under the benchmark's protocol (baseline alternating in the same
// process) rather than quoted from the tuner's records.
#pragma once
#include <string>

#include "benchmarks/bench_runner.h"
#include "search/records/records_db.h"

namespace tessel::tools {

// The best tuned schedule of `workload` (a tuning workload name: C6, D3, gemm:1024, conv2d:...)
// among `best` (RecordsDb::best_per_task() of the database at `db_path`), labelled
// "tuned#<config index>"; the default schedule, with a note on stderr, when the database has no
// correct trial of it. Throws UserError when the recorded configuration no longer fits the
// template (e.g. the template changed since the database was written).
TesselSchedule tuned_schedule(const std::vector<search::TrialRecord>& best, const std::string& db_path,
                              const std::string& workload);

}  // namespace tessel::tools
