// A lowering pipeline: the passes that turn a schedule into a target's loop program, in phases
// (lower_pass.h). Each target kind has its own (a "lowering_pipeline" plugin named after the kind),
// built by one function that reads as the list of its passes (cpu_pipeline.cpp, Halide's Lower.cpp
// style); extension points are the ends of the phases, where plugin passes (kind "lower_pass") are
// added by name.
//
//   LoweringPipeline p = lowering_pipeline(Target::parse("llvm_cpu -isa=avx2"),
//                                          {{"serialize_short_parallel", {{"min_extent", 8}}}});
//   std::cout << p.describe();           // phase, name and description of every pass, in order
//   p.pass_names();                      // what --print-after accepts
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "passes/lower/lower_pass.h"

namespace tessel {

// Called after every pass with the pass and the IR it produced (print-after-all, IR dumps).
using PassObserver = std::function<void(Phase phase, const Pass& pass, const Stmt& after)>;

class LoweringPipeline {
 public:
  struct Step {
    Phase phase;
    Pass pass;
  };

  explicit LoweringPipeline(std::string name) : name_(std::move(name)) {}
  const std::string& name() const { return name_; }  // "cpu", ...

  // Appends `pass` at the end of `phase`, after the passes already in it.
  LoweringPipeline& add(Phase phase, Pass pass);
  // Appends the plugin pass request.name, created with request.params, at the end of the phase
  // its "phase" parameter names. Throws UserError for an unknown plugin (listing the valid ones)
  // or bad parameters.
  LoweringPipeline& add_plugin(const PassRequest& request);

  // Every step, in the order they run.
  const std::vector<Step>& steps() const { return steps_; }
  // The distinct pass names, in order of first appearance.
  std::vector<std::string> pass_names() const;
  // One line per pass: "phase  name  description".
  std::string describe() const;

  // Runs every pass in order, the first from an empty statement; calls `observe` (if set) after
  // each. Returns the final body.
  Stmt run(const PassContext& context, const PassObserver& observe = nullptr) const;

 private:
  std::string name_;
  std::vector<Step> steps_;  // ordered by phase, then by when they were added
};

// The interface of the plugin kind "lowering_pipeline": one plugin per target kind, registered
// under the kind's name (llvm_cpu and c_source build cpu_pipeline), so a back end for a new kind
// (GPU, accelerator) brings its pipeline the way it brings itself, in tree or from --plugin.
class PipelineFactory {
 public:
  static constexpr const char* kPluginKind = "lowering_pipeline";
  virtual ~PipelineFactory();
  virtual LoweringPipeline build(const Target& target) const = 0;
};

// The pipeline of the target's kind with the requested plugin passes added in order. Throws
// UserError for a kind without a pipeline and for bad plugin passes.
LoweringPipeline lowering_pipeline(const Target& target, const std::vector<PassRequest>& extra_passes = {});

}  // namespace tessel
