// The "c_source" Backend plugin: generates C (backends/c_source/c_codegen.h), compiles it with the
// system C compiler into a shared library and calls it through the generated packed wrapper.
// emit(func, "c") returns the generated C.
#pragma once
#include "backends/backend.h"
#include "backends/c_source/c_compiler.h"

namespace tessel {

class CSourceBackend : public Backend {
 public:
  explicit CSourceBackend(c_source::CCompilerOptions options = {}) : options_(std::move(options)) {}
  std::string name() const override { return "c_source"; }
  std::unique_ptr<CompiledFunction> compile(const LoweredFunc& func) const override;
  std::string emit(const LoweredFunc& func, const std::string& format) const override;

 private:
  c_source::CCompilerOptions options_;
};

}  // namespace tessel
