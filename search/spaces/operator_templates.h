// The hand-written templates of the "template" space, found by operator name, so that an operator
// added as a plugin (search/spaces/workload_operator.h) becomes tunable by registering its template here
// too, from its own file or library, without editing the space.
//
//   TESSEL_REGISTER_OPERATOR_TEMPLATE(gemm, [](const WorkloadSpec& w, const Target& t) {
//     return make_gemm_template(w.shape<GemmShape>(), t); });
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "search/spaces/schedule_template.h"

namespace tessel::search {

using TemplateFactory =
    std::function<std::shared_ptr<const ScheduleTemplate>(const WorkloadSpec& workload, const Target& target)>;

// Registers the template of operator `op`; a second template for the same operator is an
// InternalError (two files claiming one operator).
void add_operator_template(const std::string& op, TemplateFactory factory);
// The template factory of `op`, or null when no template is registered for it.
const TemplateFactory* operator_template(const std::string& op);
// Operators with a template, sorted, for messages.
std::vector<std::string> operators_with_templates();

namespace detail {
struct OperatorTemplateRegistrar {
  OperatorTemplateRegistrar(const std::string& op, TemplateFactory factory) { add_operator_template(op, std::move(factory)); }
};
}  // namespace detail

#define TESSEL_REGISTER_OPERATOR_TEMPLATE(op, factory) \
  static ::tessel::search::detail::OperatorTemplateRegistrar tessel_operator_template_##op(#op, factory)

}  // namespace tessel::search
