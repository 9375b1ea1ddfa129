// Running the system C compiler (posix_spawn, output captured in a log file) and loading its
// output with dlopen. Every compilation gets its own temporary directory, so concurrent compiles
// never share files.
#include "backends/c_source/c_compiler.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/error.h"

extern char** environ;

namespace tessel::c_source {

namespace fs = std::filesystem;

LoadedLibrary::~LoadedLibrary() {
  if (handle_) dlclose(handle_);
}

void* LoadedLibrary::symbol(const std::string& name) const {
  void* address = dlsym(handle_, name.c_str());
  if (!address) user_error("generated library has no symbol '", name, "': ", dlerror());
  return address;
}

std::vector<std::string> compile_command(const CCompilerOptions& options, const std::string& source_path,
                                         const std::string& library_path) {
  // -fwrapv: signed integers wrap, as ir/scalar_semantics.h says they do.
  std::vector<std::string> argv = {options.compiler, "-std=gnu11", "-fwrapv", "-O" + std::to_string(options.opt_level)};
  if (!options.march.empty()) argv.push_back("-march=" + options.march);
  argv.insert(argv.end(), options.isa_flags.begin(), options.isa_flags.end());
  if (options.openmp) argv.push_back("-fopenmp");
  for (const char* flag : {"-shared", "-fPIC", "-o"}) argv.push_back(flag);
  argv.push_back(library_path);
  argv.push_back(source_path);
  argv.push_back("-lm");
  return argv;
}

namespace {

fs::path make_temp_dir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/tessel-c-XXXXXX";
  if (!mkdtemp(pattern.data()))
    user_error("cannot create a temporary directory from '", pattern, "' for the C compiler: set TMPDIR to a writable directory");
  return pattern;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string join(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

// Runs argv with stdout and stderr appended to `log`; returns the exit status, or -1 if it could
// not be started.
int run_logged(const std::vector<std::string>& argv, const fs::path& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The OpenMP runtime's worker threads outlive a parallel region. If unloading a kernel library
// also unloaded the runtime, those threads would run unmapped code; marking whichever runtime the
// kernel pulled in as never-unloaded prevents that (RTLD_NOLOAD: only if already loaded).
void pin_openmp_runtime() {
  for (const char* runtime : {"libgomp.so.1", "libomp.so", "libomp.so.5", "libiomp5.so"})
    dlopen(runtime, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

}  // namespace

std::shared_ptr<LoadedLibrary> compile_and_load(const std::string& source, const std::string& stem,
                                                const CCompilerOptions& options) {
  fs::path dir = make_temp_dir();
  fs::path source_path = dir / (stem + ".c"), library_path = dir / (stem + ".so"), log = dir / "compile.log";
  std::ofstream(source_path) << source;
  std::vector<std::string> argv = compile_command(options, source_path, library_path);
  int status = run_logged(argv, log);
  if (status == -1)
    user_error("cannot run the C compiler '", options.compiler, "': install it or choose another with the "
               "c_source back end's 'compiler' parameter (generated file: ", source_path.string(), ")");
  if (status != 0)
    user_error("the C compiler failed (exit status ", status, ") on the generated file ", source_path.string(),
               "\ncommand: ", join(argv), "\n", read_file(log));
  void* handle = dlopen(library_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) user_error("cannot load the compiled library ", library_path.string(), ": ", dlerror());
  pin_openmp_runtime();
  auto library = std::make_shared<LoadedLibrary>(handle);
  std::error_code ignored;
  fs::remove_all(dir, ignored);  // the loaded mapping stays valid without the files
  return library;
}

}  // namespace tessel::c_source
