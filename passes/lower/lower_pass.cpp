// Phases, the lower_pass plugin interface and pass requests (passes/lower/lower_pass.h).
#include "passes/lower/lower_pass.h"

#include "support/error.h"

namespace tessel {

namespace {

std::vector<std::string> phase_names() {
  std::vector<std::string> names;
  for (Phase phase : kAllPhases) names.push_back(phase_name(phase));
  return names;
}

}  // namespace

const char* phase_name(Phase phase) {
  switch (phase) {
    case Phase::Schedule: return "schedule";
    case Phase::Flatten: return "flatten";
    case Phase::Simplify: return "simplify";
    case Phase::LoopTransforms: return "loop_transforms";
    case Phase::Finalize: return "finalize";
  }
  return "?";
}

std::optional<Phase> parse_phase(const std::string& name) {
  for (Phase phase : kAllPhases)
    if (name == phase_name(phase)) return phase;
  return std::nullopt;
}

LowerPass::~LowerPass() = default;

ParamSpec phase_param(Phase phase) {
  return {"phase", ParamType::String, phase_name(phase), "the phase whose end the pass runs at",
          Allowed::one_of(phase_names())};
}

PassRequest parse_pass_request(const std::string& text) {
  size_t colon = text.find(':');
  std::string name = text.substr(0, colon);
  if (name.empty()) user_error("--pass \"", text, "\" names no pass; write NAME or NAME:key=value,key=value");
  if (colon == std::string::npos) return {name, nullptr};
  std::vector<std::string> assignments;
  for (size_t start = colon + 1;;) {
    size_t comma = text.find(',', start);
    assignments.push_back(text.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return {name, parse_param_assignments(assignments, "--pass " + name + ":")};
}

}  // namespace tessel
