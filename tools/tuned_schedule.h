// `tessel bench --tuned DB`: Tessel's side of a benchmark case compiled with the tuned configuration
// a records database holds for the workload (search/tuned_config.h finds it), instead of the ops/
// default schedule, so tuned results are re-measured under the benchmark's protocol (baseline
// alternating in the same process) rather than quoted from the tuner's records.
#pragma once
#include <string>

#include "benchmarks/bench_runner.h"
#include "search/tuned_config.h"
#include "target/target.h"

namespace tessel::tools {

// What a records database says to run, read once per command.
using TunedChoices = search::TunedRecords;

// The tuned schedule of `workload` (a tuning workload name: C6, D3, gemm:1024, conv2d:...) for
// `target` in the template space, labelled as TunedConfig::label() says. A configuration tuned for
// another or an unknown target is used only when the database has none for this one, with a note
// on stderr. The default schedule, with a note on stderr, when the database has nothing that fits.
TesselSchedule tuned_schedule(const TunedChoices& choices, const std::string& workload,
                              const Target& target = Target::host());

}  // namespace tessel::tools
