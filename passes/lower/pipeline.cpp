// Lowering pipelines: ordering passes by phase, plugin passes, the pipeline of a target
// (passes/lower/pipeline.h).
#include "passes/lower/pipeline.h"

#include <algorithm>
#include <iomanip>
#include <memory>
#include <sstream>

#include "support/error.h"

namespace tessel {

LoweringPipeline& LoweringPipeline::add(Phase phase, Pass pass) {
  TESSEL_CHECK(pass.run, "pass '", pass.name, "' has no run function");
  auto after = std::find_if(steps_.begin(), steps_.end(), [phase](const Step& s) { return s.phase > phase; });
  steps_.insert(after, Step{phase, std::move(pass)});
  return *this;
}

LoweringPipeline& LoweringPipeline::add_plugin(const PassRequest& request) {
  const Registry<LowerPass>& registry = Registry<LowerPass>::instance();
  const PluginInfo& info = registry.info(request.name);
  bool has_phase = std::any_of(info.params.begin(), info.params.end(), [](const ParamSpec& p) { return p.name == "phase"; });
  if (!has_phase)
    user_error("lower_pass '", request.name, "' declares no \"phase\" parameter, so it cannot be placed in a "
               "pipeline; its author must add phase_param(Phase::...) to its parameters (passes/lower/lower_pass.h)");
  Phase phase = *parse_phase(PluginParams(info, request.params).get_string("phase"));
  std::shared_ptr<const LowerPass> plugin = registry.create(request.name, request.params);
  return add(phase, Pass{request.name, info.description,
                         [plugin](const Stmt& body, const PassContext& context) { return plugin->run(body, context); }});
}

std::vector<std::string> LoweringPipeline::pass_names() const {
  std::vector<std::string> names;
  for (const Step& step : steps_)
    if (std::find(names.begin(), names.end(), step.pass.name) == names.end()) names.push_back(step.pass.name);
  return names;
}

std::string LoweringPipeline::describe() const {
  size_t width = 0;
  for (const Step& step : steps_) width = std::max(width, step.pass.name.size());
  std::ostringstream out;
  for (const Step& step : steps_)
    out << std::left << std::setw(17) << phase_name(step.phase) << std::setw(static_cast<int>(width) + 2)
        << step.pass.name << step.pass.description << "\n";
  return out.str();
}

Stmt LoweringPipeline::run(const PassContext& context, const PassObserver& observe) const {
  Stmt body;
  for (const Step& step : steps_) {
    body = step.pass.run(body, context);
    TESSEL_CHECK(body.defined(), "lowering pass '", step.pass.name, "' returned no statement");
    if (observe) observe(step.phase, step.pass, body);
  }
  return body;
}

PipelineFactory::~PipelineFactory() = default;

LoweringPipeline lowering_pipeline(const Target& target, const std::vector<PassRequest>& extra_passes) {
  const Registry<PipelineFactory>& factories = Registry<PipelineFactory>::instance();
  std::vector<std::string> kinds = factories.names();
  if (std::find(kinds.begin(), kinds.end(), target.kind()) == kinds.end())
    user_error("no lowering pipeline for target kind '", target.kind(), "' (pipelines exist for ", join_list(kinds),
               "); its back end must register a lowering_pipeline plugin of that name (passes/lower/pipeline.h)");
  LoweringPipeline pipeline = factories.create(target.kind())->build(target);
  for (const PassRequest& request : extra_passes) pipeline.add_plugin(request);
  return pipeline;
}

}  // namespace tessel
