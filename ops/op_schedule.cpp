// Lookup of operator schedules in the plugin registry, by tag and device kind.
#include "ops/op_schedule.h"

#include <algorithm>

#include "support/error.h"

namespace tessel::ops {

std::string op_schedule_name(const std::string& tag, DeviceKind device) {
  return tag + "@" + device_kind_name(device);
}

Schedule default_schedule(const Tensor& output, const Target& target, const nlohmann::json& params) {
  if (!output.defined() || output->is_placeholder())
    user_error("default_schedule: the output must be a computed tensor, not an input placeholder");
  return Registry<OpSchedule>::instance()
      .create(op_schedule_name(output->tag, target.device()), params)
      ->apply(output, target);
}

Tensor output_accumulator(Schedule& s, const Tensor& output) {
  if (output->is_reduction()) return s.cache_write(output);
  Tensor anchor;
  std::vector<Tensor> pending = input_tensors(output), inlined;
  while (!pending.empty()) {
    Tensor t = pending.back();
    pending.pop_back();
    if (t->is_placeholder() || std::any_of(inlined.begin(), inlined.end(), [&](const Tensor& i) { return i.same_as(t); }))
      continue;
    if (t->is_reduction()) {
      TESSEL_CHECK(!anchor.defined() || anchor.same_as(t), "'", output.name(), "' reads two reductions, '",
                   anchor.name(), "' and '", t.name(), "'");
      anchor = t;
      continue;
    }
    s[t].compute_inline();
    inlined.push_back(t);
    for (const Tensor& in : input_tensors(t)) pending.push_back(in);
  }
  TESSEL_CHECK(anchor.defined(), "'", output.name(), "' reads no reduction to compute at its tiles");
  return anchor;
}

Tensor find_by_tag(const Tensor& output, const std::string& tag) {
  std::vector<Tensor> stages = topological_order({output});
  for (auto it = stages.rbegin(); it != stages.rend(); ++it)
    if ((*it)->tag == tag) return *it;
  TESSEL_CHECK(false, "no stage tagged '", tag, "' feeds '", output.name(), "'");
  return Tensor();
}

WindowOperands window_operands(const Tensor& output, const std::string& tag) {
  WindowOperands w{find_by_tag(output, tag), Tensor(), Tensor()};
  for (const Tensor& in : operand_tensors(w.stage)) (in.ndim() == 6 ? w.kernel : w.data) = in;
  TESSEL_CHECK(w.data.defined() && w.kernel.defined(), "'", w.stage.name(), "' does not read data and a kernel");
  return w;
}

void inline_root_stages(Schedule& s, const Tensor& output, const std::vector<Tensor>& stages,
                        const std::vector<Tensor>& kept) {
  std::vector<Tensor> read = topological_order({output});
  auto among = [](const std::vector<Tensor>& ts, const Tensor& t) {
    return std::any_of(ts.begin(), ts.end(), [&](const Tensor& u) { return u.same_as(t); });
  };
  for (const Tensor& t : stages) {
    if (t.same_as(output) || t->is_placeholder() || t->is_reduction() || among(kept, t) || !among(read, t)) continue;
    if (s[t]->attach == AttachKind::Root) s[t].compute_inline();
  }
}

}  // namespace tessel::ops
