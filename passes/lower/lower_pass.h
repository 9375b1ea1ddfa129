// What a lowering pass is: a named step `Stmt -> Stmt` that runs in one phase of a target's
// lowering pipeline (passes/lower/pipeline.h) and sees the function being lowered through a
// PassContext. Built-in passes are listed by the pipelines; extra passes are plugins of kind
// "lower_pass" (support/registry.h), in-tree or loaded with `--plugin lib.so`, added by name:
//
//   // A pass that turns parallel loops shorter than min_extent into serial ones.
//   class SerializeShortParallel : public LowerPass {
//    public:
//     explicit SerializeShortParallel(int64_t min_extent) : min_extent_(min_extent) {}
//     Stmt run(const Stmt& body, const PassContext& context) const override { ... }
//    private:
//     int64_t min_extent_;
//   };
//   TESSEL_REGISTER_PLUGIN(LowerPass, serialize_short_parallel, "parallel loops below min_extent run serially",
//       (std::vector<ParamSpec>{phase_param(Phase::Finalize),
//                               {"min_extent", ParamType::Int, 4, "shortest parallel loop", Allowed::at_least(1)}}),
//       [](const PluginParams& p) { return std::make_unique<SerializeShortParallel>(p.get_int("min_extent")); });
//
//   LowerOptions options;
//   options.extra_passes = {{"serialize_short_parallel", {{"min_extent", 8}}}};
//   lower(sch, args, "f", target, options);
//   tessel lower gemm --n 64 --pass serialize_short_parallel:min_extent=8 --print-after serialize_short_parallel
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/schedule.h"
#include "ir/stmt.h"
#include "support/registry.h"
#include "target/target.h"

namespace tessel {

// The phases of a pipeline, in the order they run. A phase names what its passes leave behind, so
// a pass added "at the end of phase P" knows the form of the IR it gets:
//   Schedule        the loop nest of every stage (Realize/Provide/TensorRead, loop kinds as
//                   scheduled), built from the schedule; tensorize will replace loop nests here
//   Flatten         buffers instead of tensors (Allocate/Store/Load over flat indices); storage
//                   scopes (shared, local, accelerator buffers) are lowered here
//   Simplify        canonical index arithmetic, loops partitioned so guards are gone from the
//                   main iterations
//   LoopTransforms  vector and unrolled loops expanded into explicit vector code and copies;
//                   virtual threads become dependency tokens here
//   Finalize        what the back-end contract of lower.h promises (one level of parallelism,
//                   constants folded); thread-binding checks of GPU targets go here
enum class Phase : uint8_t { Schedule, Flatten, Simplify, LoopTransforms, Finalize };
inline constexpr Phase kAllPhases[] = {Phase::Schedule, Phase::Flatten, Phase::Simplify, Phase::LoopTransforms,
                                       Phase::Finalize};

const char* phase_name(Phase phase);  // "schedule", "flatten", "simplify", "loop_transforms", "finalize"
std::optional<Phase> parse_phase(const std::string& name);

// What a pass sees of the function it lowers, besides the statement.
struct PassContext {
  const Target& target;
  const Schedule& schedule;   // the schedule being lowered (the first pass builds loops from it)
  std::string function_name;
  std::vector<FuncArg> args;  // the function's arguments, in call order
  std::vector<Tensor> arg_ops;  // the operation argument i holds (args[i] is its buffer)
};

// One step of a pipeline. `run` gets the IR the previous pass left (the first pass of a pipeline
// gets an empty Stmt and builds the loops from context.schedule).
struct Pass {
  std::string name;         // what --print-after names; several steps may share one (simplify)
  std::string description;  // one line
  std::function<Stmt(const Stmt& body, const PassContext& context)> run;
};

// The interface of lowering-pass plugins (kind "lower_pass"). A plugin declares, with its other
// parameters, phase_param(P): the phase whose end it runs at by default; a user may move it with
// the parameter phase=NAME.
class LowerPass {
 public:
  static constexpr const char* kPluginKind = "lower_pass";
  virtual ~LowerPass();
  // The rewritten IR. Throws UserError for IR the pass cannot handle (saying what and why).
  virtual Stmt run(const Stmt& body, const PassContext& context) const = 0;
};

// The "phase" parameter every lower_pass plugin declares, defaulting to `phase`; its allowed values
// are the phase names.
ParamSpec phase_param(Phase phase);

// A plugin pass asked for by name, with its parameters (a JSON object, or null for the defaults).
struct PassRequest {
  std::string name;
  nlohmann::json params = nullptr;
};

// "NAME" or "NAME:key=value,key=value" (the command line's --pass) -> a request; values are read
// as JSON when they parse (numbers, booleans), else as strings. Throws UserError for a malformed
// text.
PassRequest parse_pass_request(const std::string& text);

}  // namespace tessel
