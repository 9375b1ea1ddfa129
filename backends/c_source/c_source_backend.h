// The "c_source" Backend plugin: generates C (backends/c_source/c_codegen.h), compiles a module's
// functions with the system C compiler into one shared library (with OpenMP for parallel loops)
// and calls them through their generated packed wrappers. emit(func, "c") returns the generated C.
#pragma once
#include "backends/backend.h"
#include "backends/c_source/c_compiler.h"

namespace tessel {

class CSourceBackend : public Backend {
 public:
  explicit CSourceBackend(c_source::CCompilerOptions options = {}) : options_(std::move(options)) {}
  std::string name() const override { return "c_source"; }
  Module build(const std::vector<BuildInput>& functions) const override;
  std::string emit(const LoweredFunc& func, const std::string& format) const override;

 private:
  c_source::CCompilerOptions options_;
};

}  // namespace tessel
