// The first half of measurement: builds candidates of a task's space into artifacts a
// Runner (runner.h) loads and times. Each candidate is handed to the back end as its scheduled
// expression (backends/build_input.h: a back end lowers it, or generates code from the schedule)
// and exported as a shared library of its own (runtime/module.h) in the builder's scratch
// directory. Candidates build in parallel (std::thread workers; back ends allow concurrent
// builds). One library per candidate rather than per batch: linking costs ~4 ms a library with
// `ld` (cc's driver: ~18 ms), about 1% of code generation, and a candidate that fails to build or
// link never takes its batch with it.
//
//   Builder builder(task, create_backend(Target::parse("llvm_cpu")), 2);
//   std::vector<BuildResult> built = builder.build(candidates);
//   ... runner.run(...) ...
//   builder.discard(built);
#pragma once
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/system_tools.h"
#include "runtime/runner/protocol.h"
#include "search/task/task.h"

namespace tessel::search {

struct BuildResult {
  runner::KernelRef artifact;  // the exported module and its kernel's name; library empty if it failed
  double compile_s = 0;        // lowering + code generation + export
  std::string error;           // why it did not build: a CompileError
  bool ok() const { return !artifact.library.empty(); }
};

class Builder {
 public:
  // Builds with `backend` (shared by the worker threads); throws UserError for bad thread counts.
  Builder(const Task& task, std::unique_ptr<Backend> backend, int threads);

  // One result per candidate, in order; failures are results, never exceptions.
  std::vector<BuildResult> build(const std::vector<Candidate>& candidates) const;
  // Removes the artifacts of `built` (the scratch directory itself goes with the builder).
  void discard(const std::vector<BuildResult>& built) const;

 private:
  BuildResult build_one(const Candidate& candidate) const;

  const Task& task_;
  std::unique_ptr<Backend> backend_;
  int threads_;
  TempDir dir_;
  mutable std::atomic<uint64_t> serial_{0};  // artifact names are never reused in a process's life
};

}  // namespace tessel::search
