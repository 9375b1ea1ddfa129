// Module metadata, checked calls, and modules loaded from exported shared libraries
// (runtime/module.h).
#include "runtime/module.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/json_integers.h"
#include "support/output_file.h"

namespace tessel {

// ---- metadata -----------------------------------------------------------------------------------

const FunctionInfo* ModuleInfo::find(const std::string& name) const {
  for (const FunctionInfo& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

std::string ModuleInfo::to_json() const {
  nlohmann::json fs = nlohmann::json::array();
  for (const FunctionInfo& f : functions) {
    nlohmann::json args = nlohmann::json::array();
    for (const ArgInfo& a : f.args) args.push_back({{"name", a.name}, {"dtype", a.dtype.str()}, {"shape", a.shape}});
    fs.push_back({{"name", f.name}, {"symbol", f.symbol}, {"args", args}});
  }
  return nlohmann::json{{"format", "tessel-module"}, {"version", 1}, {"target", target}, {"functions", fs}}.dump();
}

ModuleInfo ModuleInfo::from_json(const std::string& text, const std::string& what) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json_field(j, "format") != "tessel-module")
    user_error(what, " does not hold Tessel module metadata; export modules with Module::export_library");
  nlohmann::json version = json_field(j, "version");
  if (version != 1)
    user_error(what, " holds module metadata of version ", version.dump(), "; this Tessel reads version 1");
  try {
    ModuleInfo info;
    info.target = j.at("target").get<std::string>();
    for (const nlohmann::json& f : j.at("functions")) {
      FunctionInfo function{f.at("name").get<std::string>(), f.at("symbol").get<std::string>(), {}};
      for (const nlohmann::json& a : f.at("args")) {
        ArgInfo arg{a.at("name").get<std::string>(), ElementType::parse(a.at("dtype").get<std::string>()), {}};
        std::optional<std::vector<int64_t>> shape = json_integers(a.at("shape"));
        if (!shape) user_error(what, ": argument '", arg.name, "' of '", function.name, "' has a shape that is not integers");
        arg.shape = *shape;
        NDArray::checked_nbytes(arg.shape, arg.dtype, what + ": argument '" + arg.name + "' of '" + function.name + "': its");
        function.args.push_back(std::move(arg));
      }
      info.functions.push_back(std::move(function));
    }
    return info;
  } catch (const nlohmann::json::exception& e) {
    user_error(what, " holds malformed module metadata (", e.what(), "); export the module again");
  }
}

// ---- calls --------------------------------------------------------------------------------------

ModuleNode::~ModuleNode() = default;

void Kernel::run(const std::vector<NDArray*>& args) const {
  if (!defined()) user_error("run() on an empty Kernel: get one from Module::function");
  const std::vector<ArgInfo>& expected = info_->args;
  if (args.size() != expected.size())
    user_error("function '", info_->name, "' takes ", expected.size(), " arrays but was run with ", args.size(),
               "; pass one array per argument in order");
  std::vector<void*> data;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string what =
        "argument " + std::to_string(i) + " ('" + expected[i].name + "') of function '" + info_->name + "'";
    if (!args[i] || !args[i]->defined()) user_error(what, " is a null or undefined array");
    args[i]->check_matches(expected[i].shape, expected[i].dtype, what);
    if (!args[i]->device().is_host())
      user_error(what, " lives on ", args[i]->device().str(), " but the function runs on the cpu; copy it first");
    data.push_back(args[i]->data());
  }
  call(data.data());
}

Kernel Module::function(const std::string& name) const {
  if (!node_) user_error("function('", name, "') on an empty Module: build or load one first");
  const FunctionInfo* info = node_->info().find(name);
  if (!info) {
    std::vector<std::string> names;
    for (const FunctionInfo& f : node_->info().functions) names.push_back(f.name);
    user_error("the module has no function '", name, "'; it has: ", join_list(names));
  }
  return Kernel(node_, info, node_->entry(*info));
}

namespace {

// The OpenMP runtime's worker threads outlive a parallel region. If unloading a kernel library
// also unloaded the runtime it pulled in, those threads would run unmapped code; marking whichever
// runtime is loaded as never-unloaded prevents that (RTLD_NOLOAD: only if already loaded).
void pin_openmp_runtime() {
  for (const char* runtime : {"libgomp.so.1", "libomp.so", "libomp.so.5", "libiomp5.so"})
    dlopen(runtime, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD | RTLD_NODELETE);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in) user_error("cannot read the module '", path, "'");
  return bytes.str();
}

// A dlopen'ed library. Its bytes are kept so that it can be exported again after the file is gone.
class SharedLibraryModule : public ModuleNode {
 public:
  SharedLibraryModule(ModuleInfo info, void* handle, std::string image)
      : ModuleNode(std::move(info)), handle_(handle), image_(std::move(image)) {}
  ~SharedLibraryModule() override { dlclose(handle_); }

  PackedEntry entry(const FunctionInfo& function) const override {
    void* address = dlsym(handle_, function.symbol.c_str());
    if (!address)
      user_error("the module's library has no symbol '", function.symbol, "' for function '", function.name,
                 "'; the library does not match its metadata: export it again");
    return reinterpret_cast<PackedEntry>(address);
  }
  void export_library(const std::string& path) const override { write_file_atomically(path, image_); }

 private:
  void* handle_;
  std::string image_;
};

}  // namespace

Module load_module(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error))
    user_error("cannot load module '", path, "': no such file; export a module there first");
  std::string image = read_file(path);
  // A path without a slash would make dlopen search the library path instead.
  std::string open_path = path.find('/') == std::string::npos ? "./" + path : path;
  void* handle = dlopen(open_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) user_error("cannot load module '", path, "': ", dlerror());
  pin_openmp_runtime();
  const char* info_text = static_cast<const char*>(dlsym(handle, kModuleInfoSymbol));
  if (!info_text) {
    dlclose(handle);
    user_error("'", path, "' is a shared library but not a Tessel module (no ", kModuleInfoSymbol,
               " symbol); export modules with Module::export_library");
  }
  try {
    ModuleInfo info = ModuleInfo::from_json(info_text, "'" + path + "'");
    return Module(std::make_shared<SharedLibraryModule>(std::move(info), handle, std::move(image)));
  } catch (...) {
    dlclose(handle);
    throw;
  }
}

}  // namespace tessel
