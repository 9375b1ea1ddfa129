// Plugin catalogue, parameter checking and loading of out-of-tree plugin libraries.
#include "support/registry.h"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "support/error.h"
#include "support/hash.h"
#include "support/limits.h"

namespace tessel {

namespace {

std::vector<PluginInfo>& catalogue() {
  static std::vector<PluginInfo> plugins;
  return plugins;
}

// The library each plugin loaded by load_plugin_library came from, by "kind/name", for listing.
std::map<std::string, std::string>& plugin_libraries() {
  static std::map<std::string, std::string> libraries;
  return libraries;
}

// The hash of each library loaded by load_plugin_library, by the path it was loaded as.
std::map<std::string, std::string>& plugin_library_hashes() {
  static std::map<std::string, std::string> hashes;
  return hashes;
}

// What load_plugin_library checks a library's static initializers against: how many plugins
// were registered, which registrations were refused because the name was taken, and which threw.
struct RegistrationLog {
  size_t added = 0;
  std::vector<std::string> refused;  // "kind 'name'"
  std::vector<std::string> failed;   // "kind 'name' threw: message"
};

RegistrationLog& registration_log() {
  static RegistrationLog log;
  return log;
}

const char* type_name(ParamType t) {
  switch (t) {
    case ParamType::Int: return "int";
    case ParamType::Float: return "float";
    case ParamType::Bool: return "bool";
    case ParamType::String: return "string";
  }
  return "?";
}

// The type as the error message asks for it.
const char* type_wanted(ParamType t) {
  switch (t) {
    case ParamType::Int: return "an integer";
    case ParamType::Float: return "a number";
    case ParamType::Bool: return "true or false";
    case ParamType::String: return "a string";
  }
  return "?";
}

bool is_numeric(ParamType t) { return t == ParamType::Int || t == ParamType::Float; }

// A bound as written in messages and listings: 4096, 0.5, 1e-09.
std::string format_bound(double v) {
  std::ostringstream out;
  out << std::setprecision(15) << v;
  return out.str();
}

// A bound as JSON: an integer for Int parameters, so `plugins --json` says 1 rather than 1.0.
nlohmann::json bound_json(double v, ParamType type) {
  if (type == ParamType::Int && v == std::floor(v)) return static_cast<int64_t>(v);
  return v;
}

// A range no value can satisfy: [2, 1], or (1, 1].
bool admits_nothing(const Allowed& a) {
  if (!a.min || !a.max) return false;
  return a.min->value > a.max->value || (a.min->value == a.max->value && (a.min->open || a.max->open));
}

// A given value as messages show it: strings quoted, numbers as given.
std::string shown(const nlohmann::json& value) { return value.dump(); }

bool matches(ParamType t, const nlohmann::json& v) {
  switch (t) {
    case ParamType::Int: return v.is_number_integer();
    case ParamType::Float: return v.is_number();
    case ParamType::Bool: return v.is_boolean();
    case ParamType::String: return v.is_string();
  }
  return false;
}

std::string join_names(const std::vector<std::string>& names) { return names.empty() ? "(none)" : join_list(names); }

}  // namespace

bool Allowed::admits(const nlohmann::json& value) const {
  if (value.is_number()) {
    double v = value.get<double>();
    if (min && (min->open ? !(v > min->value) : !(v >= min->value))) return false;
    if (max && (max->open ? !(v < max->value) : !(v <= max->value))) return false;
    return true;
  }
  if (value.is_string() && !choices.empty())
    return std::find(choices.begin(), choices.end(), value.get<std::string>()) != choices.end();
  return true;
}

std::string Allowed::describe() const {
  if (!choices.empty()) return "valid values: " + join_list(choices);
  if (min && max)
    return "valid range: " + std::string(min->open ? "(" : "[") + format_bound(min->value) + ", " +
           format_bound(max->value) + (max->open ? ")" : "]");
  if (min) return "valid range: " + std::string(min->open ? "> " : ">= ") + format_bound(min->value);
  if (max) return "valid range: " + std::string(max->open ? "< " : "<= ") + format_bound(max->value);
  return "";
}

nlohmann::json Allowed::to_json(ParamType type) const {
  nlohmann::json out = nlohmann::json::object();
  if (min) out[min->open ? "exclusive_min" : "min"] = bound_json(min->value, type);
  if (max) out[max->open ? "exclusive_max" : "max"] = bound_json(max->value, type);
  if (!choices.empty()) out["choices"] = choices;
  return out;
}

std::string param_spec_problem(const ParamSpec& spec) {
  const Allowed& a = spec.allowed;
  if ((a.min || a.max) && !is_numeric(spec.type))
    return "declares a range, which only int and float parameters can have";
  if (!a.choices.empty() && spec.type != ParamType::String)
    return "declares choices, which only string parameters can have";
  if (admits_nothing(a))
    return "has an empty range (" + a.describe() + ")";
  if (!matches(spec.type, spec.default_value))
    return "has default " + shown(spec.default_value) + ", which is not " + type_wanted(spec.type);
  if (!a.admits(spec.default_value))
    return "has default " + shown(spec.default_value) + ", outside its own " + a.describe();
  return "";
}

nlohmann::json PluginInfo::to_json() const {
  nlohmann::json params_json = nlohmann::json::array();
  for (const ParamSpec& p : params) {
    nlohmann::json param = {{"name", p.name}, {"type", type_name(p.type)}, {"default", p.default_value},
                            {"description", p.description}};
    param.update(p.allowed.to_json(p.type));
    params_json.push_back(param);
  }
  nlohmann::json out = {{"kind", kind}, {"name", name}, {"description", description}, {"params", params_json}};
  auto library = plugin_libraries().find(kind + "/" + name);  // only plugins from a plugin library
  if (library != plugin_libraries().end()) out["library"] = library->second;
  return out;
}

bool add_plugin_info(const PluginInfo& info) {
  auto& all = catalogue();
  bool taken = std::any_of(all.begin(), all.end(),
                           [&](const PluginInfo& p) { return p.kind == info.kind && p.name == info.name; });
  if (taken) {
    registration_log().refused.push_back(info.kind + " '" + info.name + "'");
    return false;
  }
  all.push_back(info);
  ++registration_log().added;
  return true;
}

void* detail::registry_instance(std::type_index interface, void* (*create)()) {
  static std::mutex mutex;
  static std::map<std::type_index, void*> registries;
  std::lock_guard<std::mutex> lock(mutex);
  void*& registry = registries[interface];
  if (!registry) registry = create();
  return registry;
}

std::vector<PluginInfo> all_plugins() {
  std::vector<PluginInfo> out = catalogue();
  std::sort(out.begin(), out.end(), [](const PluginInfo& a, const PluginInfo& b) {
    return std::tie(a.kind, a.name) < std::tie(b.kind, b.name);
  });
  return out;
}

namespace {

// Every message about a given value has this form, so users meet one wording whatever the plugin:
//   parameter 'eta' of cost_model 'xgboost' is 0; valid range: (0, 1]
void check_value(const PluginInfo& info, const ParamSpec& spec, const nlohmann::json& value) {
  auto fail = [&](const std::string& what_is_valid) {
    user_error("parameter '", spec.name, "' of ", info.kind, " '", info.name, "' is ", shown(value), "; ",
               what_is_valid);
  };
  if (!matches(spec.type, value)) fail(std::string("it must be ") + type_wanted(spec.type));
  if (!spec.allowed.admits(value)) fail(spec.allowed.describe());
}

}  // namespace

PluginParams::PluginParams(const PluginInfo& info, const nlohmann::json& given) : info_(&info) {
  values_ = nlohmann::json::object();
  for (const ParamSpec& spec : info.params) values_[spec.name] = spec.default_value;
  if (given.is_null()) return;
  if (!given.is_object())
    user_error("parameters of ", info.kind, " '", info.name, "' must be a mapping of name to value");
  std::vector<std::string> valid;
  for (const ParamSpec& spec : info.params) valid.push_back(spec.name);
  for (const auto& item : given.items()) {
    const std::string& key = item.key();  // (not a structured binding: clang 14 cannot capture one)
    const nlohmann::json& value = item.value();
    auto spec = std::find_if(info.params.begin(), info.params.end(), [&](const ParamSpec& s) { return s.name == key; });
    if (spec == info.params.end())
      user_error(info.kind, " '", info.name, "' has no parameter '", key, "'; valid parameters: ", join_names(valid));
    check_value(info, *spec, value);
    values_[key] = value;
  }
}

const nlohmann::json& PluginParams::at(const std::string& name, ParamType type) const {
  auto spec = std::find_if(info_->params.begin(), info_->params.end(), [&](const ParamSpec& s) { return s.name == name; });
  TESSEL_CHECK(spec != info_->params.end(), info_->name, " reads undeclared parameter ", name);
  TESSEL_CHECK(spec->type == type || (type == ParamType::Float && spec->type == ParamType::Int),
               info_->name, " reads parameter ", name, " as the wrong type");
  return values_.at(name);
}

int64_t PluginParams::get_int(const std::string& name) const { return at(name, ParamType::Int).get<int64_t>(); }
double PluginParams::get_float(const std::string& name) const { return at(name, ParamType::Float).get<double>(); }
bool PluginParams::get_bool(const std::string& name) const { return at(name, ParamType::Bool).get<bool>(); }
std::string PluginParams::get_string(const std::string& name) const {
  return at(name, ParamType::String).get<std::string>();
}

void throw_unknown_plugin(const std::string& kind, const std::string& name, const std::vector<std::string>& valid) {
  user_error("unknown ", kind, " '", name, "'; valid names: ", join_names(valid), " (a plugin of your own is loaded ",
             "first: tessel --plugin libmine.so <command> ...; see docs/plugins.md)");
}

std::string describe_plugin(const PluginInfo& info) {
  std::string out = info.kind + " '" + info.name + "'";
  auto library = plugin_libraries().find(info.kind + "/" + info.name);
  return library == plugin_libraries().end() ? out : out + " (plugin library '" + library->second + "')";
}

void throw_null_plugin(const PluginInfo& info) {
  user_error(describe_plugin(info), " could not be created: its factory returned no object (null); the plugin is "
             "broken: fix its factory or do not use it");
}

void rethrow_from_plugin(const std::string& what) {
  try {
    throw;
  } catch (const UserError&) {
    throw;
  } catch (const InternalError&) {
    throw;
  } catch (const std::exception& e) {
    user_error(what, ": ", e.what());
  } catch (...) {
    user_error(what, ": it threw an exception that is not a std::exception");
  }
}

void add_common_params(PluginInfo& info, const std::vector<ParamSpec>& common) {
  std::vector<ParamSpec> added;
  for (const ParamSpec& spec : common) {
    auto own = std::find_if(info.params.begin(), info.params.end(), [&](const ParamSpec& p) { return p.name == spec.name; });
    if (own == info.params.end())
      added.push_back(spec);
    else if (own->type != spec.type)
      user_error("it declares parameter '", spec.name, "' as ", type_wanted(own->type), ", but every ", info.kind,
                 " takes '", spec.name, "' as ", type_wanted(spec.type), " (", spec.description,
                 "); leave it out and the registry adds it");
  }
  info.params.insert(info.params.begin(), added.begin(), added.end());
}

void detail::registration_failed(const std::string& kind, const std::string& name, const std::string& message) {
  registration_log().failed.push_back(kind + " '" + name + "' threw: " + message);
}

namespace {

// The path dlopen should get: dlopen searches the library path for a bare name, but a user who
// types `--plugin libmine.so` means the file in the working directory.
std::string plugin_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    user_error("cannot load plugin library '", path, "': no such file; give the path of a shared library ",
               "built against Tessel (see docs/plugins.md)");
  if (!std::filesystem::is_regular_file(path, ec))
    user_error("cannot load plugin library '", path, "': not a file; give the path of a shared library (.so)");
  return path.find('/') == std::string::npos ? "./" + path : path;
}

// The hash of a plugin library's bytes (support/hash.h), as 16 hex digits.
std::string hash_of_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  uint64_t hash = kFnv1a64Start;
  std::vector<char> buffer(1 << 16);
  while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0)
    hash = fnv1a64(std::string_view(buffer.data(), static_cast<size_t>(in.gcount())), hash);
  if (in.bad()) user_error("cannot read plugin library '", path, "' to record its hash");
  return hex64(hash);
}

// The handles of the libraries loaded as plugins, to tell them from libraries loaded otherwise.
std::set<void*>& plugin_handles() {
  static std::set<void*> handles;
  return handles;
}

// While a library's static initializers run inside dlopen, an exception escaping one of them
// cannot be caught (dlopen's frames end the unwinding): std::terminate runs. This turns that into
// the tools' one-line message and exit status 2, naming the library.
class LoadingLibrary {
 public:
  explicit LoadingLibrary(const std::string& path) {
    loading_path() = path;
    previous_ = std::set_terminate(report_and_exit);
  }
  ~LoadingLibrary() { std::set_terminate(previous_); }

 private:
  static std::string& loading_path() {
    static std::string path;
    return path;
  }

  [[noreturn]] static void report_and_exit() {
    std::string what = "an exception that is not a std::exception";
    try {
      if (std::exception_ptr e = std::current_exception()) std::rethrow_exception(e);
      what = "no exception (std::terminate was called)";
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    std::fprintf(stderr, "tessel: plugin library '%s' threw from a static initializer while loading: %s; fix the "
                 "library's global objects\n", loading_path().c_str(), what.c_str());
    std::_Exit(2);
  }

  std::terminate_handler previous_;
};

// A plugin whose parameter declarations contradict themselves would fail on its own defaults:
// refuse it when it is loaded, naming the declaration to fix.
void check_specs(const std::string& path, const PluginInfo& info) {
  for (const ParamSpec& spec : info.params) {
    std::string problem = param_spec_problem(spec);
    if (!problem.empty())
      user_error("plugin library '", path, "': parameter '", spec.name, "' of ", info.kind, " '", info.name, "' ",
                 problem, "; fix its ParamSpec");
  }
}

// Throws if the library just loaded registered nothing, failed to register or clashed with
// existing names.
void check_registrations(const std::string& path, void* handle, const RegistrationLog& before) {
  const RegistrationLog& after = registration_log();
  if (after.failed.size() > before.failed.size())
    user_error("plugin library '", path, "': registering ", after.failed[before.failed.size()],
               "; fix the plugin's declaration (its parameters, description or factory)");
  if (after.refused.size() > before.refused.size())
    user_error("plugin library '", path, "' registers ", after.refused[before.refused.size()],
               ", a name already taken (built in or by an earlier plugin); rename the plugin");
  if (after.added == before.added) {
    dlclose(handle);
    user_error("plugin library '", path, "' registers no plugins; register them with TESSEL_REGISTER_PLUGIN ",
               "at namespace scope and build the library against Tessel's installed package (see docs/plugins.md)");
  }
  // The catalogue only grows, so this library's plugins are its last entries.
  auto& all = catalogue();
  for (size_t i = all.size() - (after.added - before.added); i < all.size(); ++i) {
    plugin_libraries()[all[i].kind + "/" + all[i].name] = path;
    check_specs(path, all[i]);
  }
}

}  // namespace

void load_plugin_library(const std::string& path) {
  std::string file = plugin_file(path);
  if (void* loaded = dlopen(file.c_str(), RTLD_NOW | RTLD_NOLOAD)) {
    dlclose(loaded);
    if (plugin_handles().count(loaded)) return;  // loaded before as a plugin: its plugins are registered
    user_error("plugin library '", path, "' registers no plugins: it is already loaded as a library this program ",
               "uses, not a plugin; give a shared library built against Tessel's installed package (see docs/plugins.md)");
  }
  RegistrationLog before = registration_log();
  void* handle = nullptr;
  {
    LoadingLibrary loading(path);
    // RTLD_GLOBAL so a plugin's own dependencies can see Tessel's symbols and each other's.
    handle = dlopen(file.c_str(), RTLD_NOW | RTLD_GLOBAL);
  }
  if (!handle)
    user_error("cannot load plugin library '", path, "': ", dlerror(),
               " (a plugin must be a shared library built against this Tessel)");
  check_registrations(path, handle, before);
  plugin_handles().insert(handle);
  plugin_library_hashes()[path] = hash_of_file(path);
}

nlohmann::json PluginLibrary::to_json() const { return {{"path", path}, {"fnv1a64", hash}, {"plugins", plugins}}; }

std::vector<PluginLibrary> loaded_plugin_libraries() {
  std::vector<PluginLibrary> out;
  for (const auto& [path, hash] : plugin_library_hashes()) {
    PluginLibrary library{path, hash, {}};
    for (const auto& [plugin, from] : plugin_libraries())
      if (from == path) library.plugins.push_back(plugin);
    out.push_back(std::move(library));
  }
  return out;
}

std::string plugin_library_hash(const std::string& kind, const std::string& name) {
  auto library = plugin_libraries().find(kind + "/" + name);
  return library == plugin_libraries().end() ? "" : plugin_library_hashes().at(library->second);
}

std::string plugin_libraries_key(const std::vector<std::pair<std::string, std::string>>& plugins) {
  std::set<std::string> hashes;
  for (const auto& [kind, name] : plugins)
    if (std::string hash = plugin_library_hash(kind, name); !hash.empty()) hashes.insert(hash);
  std::string key;
  for (const std::string& hash : hashes) key += (key.empty() ? " plugins=" : "+") + hash;
  return key;
}

std::string plugin_label(const std::string& name, const nlohmann::json& params) {
  std::string inside;
  if (params.is_object())
    for (const auto& [key, value] : params.items())
      if (key != "seed")
        inside += (inside.empty() ? "" : ",") + key + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
  return inside.empty() ? name : name + "{" + inside + "}";
}

nlohmann::json parse_param_assignments(const std::vector<std::string>& given, const std::string& option) {
  nlohmann::json params = nlohmann::json::object();
  for (const std::string& kv : given) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) user_error(option, " \"", kv, "\" must look like name=value");
    std::string key = kv.substr(0, eq);
    if (params.contains(key)) user_error(option, " gives '", key, "' twice; give each parameter once");
    params[key] = typed_scalar(kv.substr(eq + 1));  // typed as in experiment configs
  }
  return params;
}

}  // namespace tessel
