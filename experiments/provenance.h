// What a run's manifest records about where it ran, so that a result can be traced and repeated:
// the git commit of the source tree (and whether it had uncommitted changes), the versions of the
// libraries that shape the numbers, the CPU model, and the time.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace tessel::experiments {

// {"commit": "...", "dirty": bool} of the source tree Tessel was built from; commit "unknown"
// when git or the tree is not there.
nlohmann::json git_state();
// Library name -> version string.
nlohmann::json library_versions();
// "model name" of /proc/cpuinfo and the number of logical CPUs.
nlohmann::json cpu_info();
// UTC now, ISO 8601.
std::string utc_now();

}  // namespace tessel::experiments
