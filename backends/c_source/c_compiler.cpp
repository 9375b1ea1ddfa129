// Running the system C compiler on generated units (backends/system_tools.h) and loading the
// library as a module. Every compilation gets its own temporary directory, so concurrent compiles
// never share files.
#include "backends/c_source/c_compiler.h"

#include <cstdio>
#include <fstream>

#include "backends/system_tools.h"
#include "support/error.h"

namespace tessel::c_source {

namespace fs = std::filesystem;

std::vector<std::string> compile_command(const CCompilerOptions& options, const std::vector<std::string>& source_paths,
                                         const std::string& library_path) {
  // -fwrapv: signed integers wrap, as ir/scalar_semantics.h says they do.
  std::vector<std::string> argv = {options.compiler, "-std=gnu11", "-fwrapv", "-O" + std::to_string(options.opt_level)};
  if (!options.march.empty()) argv.push_back("-march=" + options.march);
  argv.insert(argv.end(), options.isa_flags.begin(), options.isa_flags.end());
  if (options.openmp) argv.push_back("-fopenmp");
  for (const char* flag : {"-shared", "-fPIC", "-o"}) argv.push_back(flag);
  argv.push_back(library_path);
  argv.insert(argv.end(), source_paths.begin(), source_paths.end());
  argv.push_back("-lm");
  return argv;
}

std::string c_string_literal(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\%03o", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

Module compile_module(const std::vector<CSourceUnit>& units, const ModuleInfo& info, const CCompilerOptions& options) {
  TempDir dir("tessel-c-");
  std::vector<std::string> sources;
  std::string listed;
  auto write_unit = [&](const std::string& stem, const std::string& source) {
    fs::path path = dir.path() / (stem + ".c");
    std::ofstream(path) << source;
    sources.push_back(path.string());
  };
  for (const CSourceUnit& unit : units) {
    write_unit(unit.stem, unit.source);
    listed += (listed.empty() ? "" : ", ") + sources.back();
  }
  write_unit("tessel_module_info",
             "// The metadata of this module (runtime/module.h).\nconst char " + std::string(kModuleInfoSymbol) +
                 "[] = " + c_string_literal(info.to_json()) + ";\n");
  fs::path library = dir.path() / "module.so", log = dir.path() / "compile.log";
  std::vector<std::string> argv = compile_command(options, sources, library.string());
  int status = run_tool(argv, log);
  if (status != 0) dir.keep();
  if (status == -1)
    user_error("cannot run the C compiler '", options.compiler, "': install it or choose another with the "
               "c_source back end's 'compiler' parameter (generated files: ", listed, ")");
  if (status != 0)
    user_error("the C compiler failed (exit status ", status, ") on the generated files ", listed,
               "\ncommand: ", command_line(argv), "\n", read_text_file(log));
  return load_module(library.string());  // the loaded module keeps its bytes; the directory goes
}

}  // namespace tessel::c_source
