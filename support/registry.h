// The plugin registry: every replaceable component (back end, operator schedule, and later search
// strategy, schedule space, cost model) registers a name, a one-line description and typed
// parameters with defaults. Configs and the command line create components by name; unknown names
// and parameters fail with the list of valid ones. Plugins built out of tree register the same way
// from a shared library loaded with load_plugin_library().
//
// A parameter may also declare which values it allows (a numeric range, or a list of strings):
// the registry then checks given values against it with one message format, and `tessel plugins`
// shows it, so plugins do not each write and word their own checks.
//
//   TESSEL_REGISTER_PLUGIN(Backend, llvm_cpu, "LLVM 14 JIT for the host CPU",
//       {{"opt_level", ParamType::Int, 3, "LLVM optimization level", Allowed::at_least(0).at_most(3)}},
//       [](const PluginParams& p) { return std::make_unique<LlvmCpuBackend>(p.get_int("opt_level")); });
#pragma once
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <typeindex>
#include <vector>

#include <nlohmann/json.hpp>

namespace tessel {

enum class ParamType { Int, Float, Bool, String };

// One end of a numeric range; an open end excludes its value ("> 0" rather than ">= 0").
struct ParamBound {
  double value;
  bool open = false;
};

// The values a parameter allows, beyond its type: a numeric range (Int and Float parameters;
// either end may be missing) or a list of choices (String parameters). Built by chaining:
// Allowed::at_least(1) for >= 1, Allowed::above(0).at_most(1) for (0, 1], Allowed{}.below(8) for
// < 8, Allowed::one_of({"pairwise", "mse"}). Empty allows every value of the type.
struct Allowed {
  std::optional<ParamBound> min, max;
  std::vector<std::string> choices;

  static Allowed at_least(double v) { return Allowed{ParamBound{v, false}, std::nullopt, {}}; }
  static Allowed above(double v) { return Allowed{ParamBound{v, true}, std::nullopt, {}}; }
  static Allowed one_of(std::vector<std::string> values) { return Allowed{std::nullopt, std::nullopt, std::move(values)}; }
  // The upper end, closed or open.
  Allowed at_most(double v) const { return Allowed{min, ParamBound{v, false}, choices}; }
  Allowed below(double v) const { return Allowed{min, ParamBound{v, true}, choices}; }

  bool empty() const { return !min && !max && choices.empty(); }
  // Whether a value (already of the parameter's type) is allowed.
  bool admits(const nlohmann::json& value) const;
  // What is allowed, in words: "valid range: >= 1", "valid range: (0, 1]", "valid values: pairwise,
  // mse"; empty if anything goes. Error messages and `tessel plugins` both show it.
  std::string describe() const;
  // The constraint as JSON keys: "min" or "exclusive_min", "max" or "exclusive_max", "choices".
  nlohmann::json to_json(ParamType type) const;
};

struct ParamSpec {
  std::string name;
  ParamType type;
  nlohmann::json default_value;
  std::string description;
  Allowed allowed = {};  // checked by PluginParams; empty: any value of the type
};

// What is wrong with a parameter's own declaration, or "" if nothing: a range on a parameter that
// is not Int or Float, choices on one that is not a String, or a default its constraint refuses.
// load_plugin_library refuses a library declaring such a parameter; the registry tests check
// the built-in plugins.
std::string param_spec_problem(const ParamSpec& spec);

struct PluginInfo {
  std::string kind;  // "backend", "schedule", "strategy", ...
  std::string name;
  std::string description;
  std::vector<ParamSpec> params;
  nlohmann::json to_json() const;
};

// Parameters of one plugin instance, checked against its specs with defaults filled in. A given
// value of the wrong type or outside its spec's Allowed values is a UserError naming the plugin,
// the parameter, the value and what is valid.
class PluginParams {
 public:
  PluginParams(const PluginInfo& info, const nlohmann::json& given);
  int64_t get_int(const std::string& name) const;
  double get_float(const std::string& name) const;
  bool get_bool(const std::string& name) const;
  std::string get_string(const std::string& name) const;
  const nlohmann::json& values() const { return values_; }

 private:
  const nlohmann::json& at(const std::string& name, ParamType type) const;
  const PluginInfo* info_;
  nlohmann::json values_;
};

// A plugin and its parameters as one short name for labels and run keys: "genetic" or
// "genetic{pop_size=16}" (parameters in key order; a "seed" parameter is left out, since runs keep
// their seed separately).
std::string plugin_label(const std::string& name, const nlohmann::json& params);

// Parameters written on the command line, "name=value" each (tune's --param, lower's --pass):
// a JSON object whose values are typed as in experiment configs (support/limits.h typed_scalar:
// decimal integers, numbers, booleans, else strings); the registry then checks them like any
// others. An entry without a name and '=', or a name given twice (as a key repeated in a config),
// is a UserError naming `option`.
nlohmann::json parse_param_assignments(const std::vector<std::string>& given, const std::string& option);

// Every registered plugin of every kind, for listing (`tessel plugins`).
std::vector<PluginInfo> all_plugins();
// Adds a plugin to the catalogue. A second plugin of the same kind and name is refused (returns
// false): the first registration stays, and load_plugin_library reports the clash.
bool add_plugin_info(const PluginInfo& info);

// "strategy 'best_neighbour'", with " (plugin library 'lib.so')" for one loaded from a library.
std::string describe_plugin(const PluginInfo& info);
// Throws the UserError for a factory that returned null.
[[noreturn]] void throw_null_plugin(const PluginInfo& info);
// Rethrows the exception being handled (call it from a catch block): Tessel's own errors as they
// are, anything else as a UserError "<what>: <its message>", so that a plugin's
// std::out_of_range reads as the plugin's failure rather than an internal error.
[[noreturn]] void rethrow_from_plugin(const std::string& what);

namespace detail {
// The registry object of one interface. It lives in libtessel, found by type, so that a plugin
// library registers into the same object as the built-ins, whatever symbol visibility it was
// compiled with; `create` makes it on first use.
void* registry_instance(std::type_index interface, void* (*create)());
}  // namespace detail

// Registry of the plugins implementing one interface, e.g. Registry<Backend>.
template <typename Interface>
class Registry {
 public:
  using Factory = std::function<std::unique_ptr<Interface>(const PluginParams&)>;

  static Registry& instance() {
    // Never destroyed: factories of loaded plugins may point into libraries gone at exit.
    static Registry& registry = *static_cast<Registry*>(
        detail::registry_instance(typeid(Interface), []() -> void* { return new Registry; }));
    return registry;
  }

  void add(PluginInfo info, Factory factory) {
    if (!add_plugin_info(info)) return;
    std::string name = info.name;
    entries_[name] = Entry{std::move(info), std::move(factory)};
  }

  // Creates a plugin by name; `params` is a JSON object of parameter values (may be null). A
  // factory that returns null, or throws anything but Tessel's own errors, is a UserError naming
  // the plugin (and the library it came from).
  std::unique_ptr<Interface> create(const std::string& name, const nlohmann::json& params = nullptr) const {
    const Entry& entry = find(name);
    PluginParams checked(entry.info, params);
    std::unique_ptr<Interface> object;
    try {
      object = entry.factory(checked);
    } catch (...) {
      rethrow_from_plugin(describe_plugin(entry.info) + " could not be created");
    }
    if (!object) throw_null_plugin(entry.info);
    return object;
  }

  const PluginInfo& info(const std::string& name) const { return find(name).info; }

  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [name, entry] : entries_) out.push_back(name);
    return out;
  }

 private:
  struct Entry {
    PluginInfo info;
    Factory factory;
  };
  const Entry& find(const std::string& name) const;
  std::map<std::string, Entry> entries_;
};

// Throws the "unknown plugin" error: what was asked, of which kind, the valid names, and how a
// plugin built out of tree is loaded (`tessel --plugin`).
[[noreturn]] void throw_unknown_plugin(const std::string& kind, const std::string& name,
                                       const std::vector<std::string>& valid);

template <typename Interface>
const typename Registry<Interface>::Entry& Registry<Interface>::find(const std::string& name) const {
  auto it = entries_.find(name);
  if (it == entries_.end()) throw_unknown_plugin(Interface::kPluginKind, name, names());
  return it->second;
}

// Loads a shared library whose static initializers register plugins (a path without a slash is
// taken relative to the working directory). Loading the same plugin library again does nothing.
// Throws UserError if the file is missing or not a loadable shared library, if it registers no
// plugin (also a library already loaded as part of the program, such as libz), if a registration
// throws (naming the plugin and the message), or if it registers a kind and name that already
// exists. An exception escaping the library's other static initializers cannot be caught through
// dlopen: it ends the process with a one-line message naming the library and exit status 2.
void load_plugin_library(const std::string& path);

// Gives a plugin the parameters every plugin of its kind takes (an interface declares them as a
// static common_params(), as SearchStrategy does with `seed`), ahead of its own, unless it declares
// one itself. One it declares with another type is a UserError: the tuner sets it for every plugin.
void add_common_params(PluginInfo& info, const std::vector<ParamSpec>& common);

// A library loaded with load_plugin_library: the path it was loaded as, the FNV-1a hash of its
// bytes when it was loaded (support/hash.h), and its plugins as "kind/name". Experiment manifests
// record these, and run keys the hashes, so that results are never mistaken for those of another
// build of the library.
struct PluginLibrary {
  std::string path;
  std::string hash;
  std::vector<std::string> plugins;
  nlohmann::json to_json() const;
};
std::vector<PluginLibrary> loaded_plugin_libraries();
// The hash of the library a plugin was loaded from; "" for a built-in plugin.
std::string plugin_library_hash(const std::string& kind, const std::string& name);
// The part of a run key that names the builds of the plugin libraries behind `plugins` ({kind,
// name} pairs: the run's strategy, cost model, space, back end): "" when all are built in, else
// " plugins=<hash>[+<hash>...]". A run using a rebuilt library gets another key, so it neither
// resumes nor returns the records of the old build.
std::string plugin_libraries_key(const std::vector<std::pair<std::string, std::string>>& plugins);

namespace detail {
// Notes a registration that threw, for load_plugin_library to report.
void registration_failed(const std::string& kind, const std::string& name, const std::string& message);

template <typename Interface>
struct PluginRegistrar {
  // The description, parameters and factory are built here, inside the try, so that a plugin whose
  // declarations throw is reported instead of aborting the program from a static initializer.
  template <typename MakeInfo, typename MakeFactory>
  PluginRegistrar(const char* name, MakeInfo make_info, MakeFactory make_factory) {
    try {
      PluginInfo info = make_info();
      info.kind = Interface::kPluginKind;
      if constexpr (requires { Interface::common_params(); }) add_common_params(info, Interface::common_params());
      Registry<Interface>::instance().add(std::move(info), make_factory());
    } catch (const std::exception& e) {
      registration_failed(Interface::kPluginKind, name, e.what());
    } catch (...) {
      registration_failed(Interface::kPluginKind, name, "an exception that is not a std::exception");
    }
  }
};
}  // namespace detail

#define TESSEL_REGISTER_PLUGIN(Interface, name, description, params, factory)                         \
  static ::tessel::detail::PluginRegistrar<Interface> tessel_plugin_registrar_##name(                \
      #name, [] { return ::tessel::PluginInfo{"", #name, description, params}; },                    \
      [] { return ::tessel::Registry<Interface>::Factory(factory); })

}  // namespace tessel
