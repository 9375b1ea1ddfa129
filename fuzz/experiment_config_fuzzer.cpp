// libFuzzer target: the experiment-config parser (experiments/experiment_config.h). Whatever the
// text, parsing ends in a config or in a UserError (file:line:column, what is wrong); any other
// exception, a crash, a sanitizer report, a hang or unbounded memory is a bug.
// Seeds: the repository's experiment configs (seeds/experiment_config.sources).
#include <cstddef>
#include <cstdint>
#include <string>

#include "experiments/experiment_config.h"
#include "support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    tessel::experiments::ExperimentConfig config = tessel::experiments::ExperimentConfig::parse(text, "fuzz.yaml");
    // What the runner does next with an accepted config must hold too.
    TESSEL_CHECK(!config.configurations.empty() && !config.seeds.empty(), "an accepted config runs nothing");
    TESSEL_CHECK(config.runs().size() == config.configurations.size() * config.seeds.size());
    for (const auto& c : config.configurations) c.to_json().dump();
  } catch (const tessel::UserError&) {
  }
  return 0;
}
