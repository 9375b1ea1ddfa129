// Compiles a C translation unit into a shared library with the system C compiler and loads it.
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace tessel::c_source {

struct CCompilerOptions {
  std::string compiler = "cc";
  int opt_level = 2;
  std::string march = "native";  // empty: no -march flag
  bool openmp = true;
  std::vector<std::string> isa_flags;  // after -march: caps the instruction set to the target's
};

// A loaded shared library; unloaded when the last handle goes.
class LoadedLibrary {
 public:
  explicit LoadedLibrary(void* handle) : handle_(handle) {}
  ~LoadedLibrary();
  LoadedLibrary(const LoadedLibrary&) = delete;
  LoadedLibrary& operator=(const LoadedLibrary&) = delete;
  // The address of an exported symbol; throws UserError if it is missing.
  void* symbol(const std::string& name) const;

 private:
  void* handle_;
};

// The compiler command line for `source_path` -> `library_path`.
std::vector<std::string> compile_command(const CCompilerOptions& options, const std::string& source_path,
                                         const std::string& library_path);

// Writes `source` to a fresh temporary directory, compiles and loads it. The directory is removed
// after a successful load; on failure it is kept, and the UserError shows the compiler's
// diagnostics and the path of the generated file.
std::shared_ptr<LoadedLibrary> compile_and_load(const std::string& source, const std::string& stem,
                                                const CCompilerOptions& options);

}  // namespace tessel::c_source
