// The "schedule" plugin kind: each operator family registers its default CPU schedule under the
// tag its tensor expression carries ("gemm", "conv2d_nchwc", ...), with its tiling knobs as
// parameters, so `tessel plugins` lists them and configs can pick or override them by name.
//
//   Tensor out = conv2d_nchwc(data, kernel, params);
//   Schedule s = default_schedule(out);  // the plugin registered as "conv2d_nchwc"
#pragma once
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "ir/schedule.h"

namespace tessel::ops {

class OpSchedule {
 public:
  static constexpr const char* kPluginKind = "schedule";
  virtual ~OpSchedule() = default;
  // A schedule computing `output`, the tensor an operator builder of ops/ returned.
  virtual Schedule apply(const Tensor& output) const = 0;
};

// The registered schedule named by output's tag, created with `params`, applied to output.
// Throws UserError listing the registered schedules if the tag has none.
Schedule default_schedule(const Tensor& output, const nlohmann::json& params = nullptr);

// A schedule plugin that forwards to a function; what every operator family registers.
class FunctionSchedule : public OpSchedule {
 public:
  using Function = std::function<Schedule(const Tensor&)>;
  explicit FunctionSchedule(Function f) : function_(std::move(f)) {}
  Schedule apply(const Tensor& output) const override { return function_(output); }

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
// included): schedules use it to find their anchor stage. Throws InternalError if absent.
Tensor find_by_tag(const Tensor& output, const std::string& tag);

}  // namespace tessel::ops
