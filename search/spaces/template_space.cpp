// The "template" schedule space: the hand-written knob templates (AutoTVM style), one per operator,
// found by the workload's operator name (operator_templates.h). The built-in operators' templates
// are registered here; gemm_template.h and window_template.h hold them.
#include <map>

#include "search/spaces/gemm_template.h"
#include "search/spaces/operator_templates.h"
#include "search/spaces/window_template.h"
#include "support/error.h"
#include "support/registry.h"

namespace tessel::search {

namespace {

// Never destroyed: templates registered by plugin libraries may point into libraries gone at exit.
std::map<std::string, TemplateFactory>& templates() {
  static auto& table = *new std::map<std::string, TemplateFactory>;
  return table;
}

class TemplateSpace : public ScheduleSpace {
 public:
  std::shared_ptr<const SpaceTemplate> make_template(const WorkloadSpec& workload, const Target& target) const override {
    if (!target.is_cpu())
      user_error("the template space has CPU templates only; target '", target.key(), "' is not a CPU");
    const TemplateFactory* make = operator_template(workload.op());
    if (!make)
      user_error("the template space has no template for operator '", workload.op(), "' (workload ", workload.name,
                 "); operators with templates: ", join_list(operators_with_templates()));
    return (*make)(workload, target);
  }
};

}  // namespace

void add_operator_template(const std::string& op, TemplateFactory factory) {
  TESSEL_CHECK(!templates().count(op), "a second template for operator '", op, "'");
  templates().emplace(op, std::move(factory));
}

const TemplateFactory* operator_template(const std::string& op) {
  auto it = templates().find(op);
  return it == templates().end() ? nullptr : &it->second;
}

std::vector<std::string> operators_with_templates() {
  std::vector<std::string> ops;
  for (const auto& [op, factory] : templates()) ops.push_back(op);
  return ops;
}

TESSEL_REGISTER_OPERATOR_TEMPLATE(gemm, [](const WorkloadSpec& w, const Target& t) {
  return make_gemm_template(w.shape<GemmShape>(), t);
});
TESSEL_REGISTER_OPERATOR_TEMPLATE(conv2d, [](const WorkloadSpec& w, const Target& t) {
  return make_conv2d_template(w.shape<Conv2dShape>(), t);
});
TESSEL_REGISTER_OPERATOR_TEMPLATE(depthwise, [](const WorkloadSpec& w, const Target& t) {
  return make_depthwise_template(w.shape<DepthwiseShape>(), t);
});

TESSEL_REGISTER_PLUGIN(ScheduleSpace, template,
                       "hand-written knob templates (AutoTVM style), one per operator: gemm, conv2d NCHWc, "
                       "depthwise NCHWc, winograd, pixels (1x1 over pixels), fused block",
                       std::vector<ParamSpec>{}, [](const PluginParams&) { return std::make_unique<TemplateSpace>(); });

}  // namespace tessel::search
