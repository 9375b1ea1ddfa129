// The "template" schedule space: the hand-written templates of gemm_template.h and
// window_template.h, chosen by the workload's operator, for a CPU target.
#include <variant>

#include "search/spaces/gemm_template.h"
#include "search/spaces/window_template.h"
#include "support/error.h"
#include "support/registry.h"

namespace tessel::search {

namespace {

class TemplateSpace : public ScheduleSpace {
 public:
  std::shared_ptr<const ScheduleTemplate> make_template(const WorkloadSpec& workload,
                                                        const Target& target) const override {
    if (!target.is_cpu())
      user_error("the template space has CPU templates only; target '", target.key(), "' is not a CPU");
    struct Make {
      const Target& target;
      std::shared_ptr<const ScheduleTemplate> operator()(const GemmShape& s) const {
        return make_gemm_template(s, target);
      }
      std::shared_ptr<const ScheduleTemplate> operator()(const Conv2dShape& s) const {
        return make_conv2d_template(s, target);
      }
      std::shared_ptr<const ScheduleTemplate> operator()(const DepthwiseShape& s) const {
        return make_depthwise_template(s, target);
      }
    };
    return std::visit(Make{target}, workload.shape);
  }
};

}  // namespace

TESSEL_REGISTER_PLUGIN(ScheduleSpace, template,
                       "hand-written knob templates (AutoTVM style) for gemm, conv2d NCHWc and depthwise NCHWc",
                       std::vector<ParamSpec>{}, [](const PluginParams&) { return std::make_unique<TemplateSpace>(); });

}  // namespace tessel::search
