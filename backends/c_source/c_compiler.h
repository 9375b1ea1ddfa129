// Compiles C translation units into one shared library with the system C compiler and loads it as
// a module (runtime/module.h), its metadata compiled in as the tessel_module_info string.
#pragma once
#include <string>
#include <vector>

#include "runtime/module.h"

namespace tessel::c_source {

struct CCompilerOptions {
  std::string compiler = "cc";
  int opt_level = 2;
  std::string march = "native";  // empty: no -march flag
  bool openmp = true;
  std::vector<std::string> isa_flags;  // after -march: caps the instruction set to the target's
};

struct CSourceUnit {
  std::string stem;    // file name without .c; names the file in compiler messages
  std::string source;
};

// The compiler command line for `source_paths` -> `library_path`.
std::vector<std::string> compile_command(const CCompilerOptions& options, const std::vector<std::string>& source_paths,
                                         const std::string& library_path);

// Writes the units and a unit defining the metadata to a fresh temporary directory, compiles them
// into one shared library and loads it. The directory is removed after a successful load; on
// failure it is kept, and the UserError shows the compiler's diagnostics and the generated files.
Module compile_module(const std::vector<CSourceUnit>& units, const ModuleInfo& info, const CCompilerOptions& options);

// `text` as a C string literal, escaped (the metadata unit's content).
std::string c_string_literal(const std::string& text);

}  // namespace tessel::c_source
