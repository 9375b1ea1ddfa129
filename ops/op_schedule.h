// The "schedule" plugin kind: each operator family registers its default schedule for a kind of
// device under the tag its tensor expression carries ("gemm", "conv2d_nchwc", ...), with its
// tiling knobs as parameters, so `tessel plugins` lists them and configs can pick or override them
// by name. A schedule is registered as "<tag>@<device>" ("gemm@cpu"), so a GPU `gemm` schedule can
// sit beside the CPU one; the schedule reads what it needs (vector width, registers, caches,
// threads) from the target it is applied for.
//
//   Tensor out = conv2d_nchwc(data, kernel, params);
//   Schedule s = default_schedule(out, Target::parse("llvm_cpu -isa=avx2"));  // "conv2d_nchwc@cpu"
#pragma once
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "ir/schedule.h"
#include "support/registry.h"
#include "target/target.h"

namespace tessel::ops {

class OpSchedule {
 public:
  static constexpr const char* kPluginKind = "schedule";
  virtual ~OpSchedule() = default;
  // A schedule computing `output`, the tensor an operator builder of ops/ returned, for `target`
  // (a target of the device kind the schedule is registered for).
  virtual Schedule apply(const Tensor& output, const Target& target) const = 0;
};

// The registry name of the schedule of operations tagged `tag` on `device`: "<tag>@<device>".
std::string op_schedule_name(const std::string& tag, DeviceKind device);

// The schedule registered for output's tag and the target's device kind, created with `params`,
// applied to output for `target`. Throws UserError listing the registered schedules if there is
// none.
Schedule default_schedule(const Tensor& output, const Target& target, const nlohmann::json& params = nullptr);

// A schedule plugin that forwards to a function; what every operator family registers.
class FunctionSchedule : public OpSchedule {
 public:
  using Function = std::function<Schedule(const Tensor&, const Target&)>;
  explicit FunctionSchedule(Function f) : function_(std::move(f)) {}
  Schedule apply(const Tensor& output, const Target& target) const override { return function_(output, target); }

 private:
  Function function_;
};

// The stage computing a reduction family's result inside `output`'s loops (convolutions, dense,
// pooling). Alone, `output` is the operator's own reduction stage, and this is a cache_write of
// it. As the output of a fused group, `output` reads the operator's reduction (its anchor) through
// element-wise stages (bias, activation, residual add); those are inlined into `output`, so they
// run in the anchor's output loop, and the anchor's stage is returned, to be computed at output's
// tiles as a cache_write would be.
Tensor output_accumulator(Schedule& s, const Tensor& output);

// The stage `output` was built from, found by tag among the operations it reads (itself
// included), the nearest to the output when several have the tag (a fused block's last
// convolution): schedules use it to find their anchor stage. Throws InternalError if absent.
Tensor find_by_tag(const Tensor& output, const std::string& tag);

// Inlines into `s`, a schedule of `output`, each of `stages` that `output` reads and that is
// still at the root, unless it is `output`, one of `kept`, a placeholder or a reduction: the
// element-wise and layout stages around the stages a fused kernel's schedule places, so that
// they run where they are read instead of as passes of their own over memory.
void inline_root_stages(Schedule& s, const Tensor& output, const std::vector<Tensor>& stages,
                        const std::vector<Tensor>& kept);

// The blocked window stage tagged `tag` behind `output` (a conv2d_nchwc or depthwise_conv2d_nchwc)
// with what it reads: its input (padded, if it pads) and its 6-D kernel [OCb, ICc, KH, KW, ib, ob].
// Throws InternalError if the stage does not read both.
struct WindowOperands {
  Tensor stage, data, kernel;
};
WindowOperands window_operands(const Tensor& output, const std::string& tag);

}  // namespace tessel::ops

// Registers the schedule of operations tagged `tag` on devices of kind `device` (cpu, gpu,
// accelerator; device_kind_name's spelling) as "<tag>@<device>".
#define TESSEL_REGISTER_OP_SCHEDULE(tag, device, description, params, factory)                          \
  static ::tessel::detail::PluginRegistrar<::tessel::ops::OpSchedule> tessel_op_schedule_##tag##_##device( \
      #tag "@" #device, [] { return ::tessel::PluginInfo{"", #tag "@" #device, description, params}; }, \
      [] { return ::tessel::Registry<::tessel::ops::OpSchedule>::Factory(factory); })
