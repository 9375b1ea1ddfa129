// Plugin catalogue, parameter checking and loading of out-of-tree plugin libraries.
#include "support/registry.h"

#include <dlfcn.h>

#include <algorithm>

#include "support/error.h"

namespace tessel {

namespace {

std::vector<PluginInfo>& catalogue() {
  static std::vector<PluginInfo> plugins;
  return plugins;
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

bool matches(ParamType t, const nlohmann::json& v) {
  switch (t) {
    case ParamType::Int: return v.is_number_integer();
    case ParamType::Float: return v.is_number();
    case ParamType::Bool: return v.is_boolean();
    case ParamType::String: return v.is_string();
  }
  return false;
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "(none)" : out;
}

}  // namespace

nlohmann::json PluginInfo::to_json() const {
  nlohmann::json params_json = nlohmann::json::array();
  for (const ParamSpec& p : params)
    params_json.push_back({{"name", p.name}, {"type", type_name(p.type)}, {"default", p.default_value},
                           {"description", p.description}});
  return {{"kind", kind}, {"name", name}, {"description", description}, {"params", params_json}};
}

void add_plugin_info(const PluginInfo& info) {
  auto& all = catalogue();
  all.erase(std::remove_if(all.begin(), all.end(),
                           [&](const PluginInfo& p) { return p.kind == info.kind && p.name == info.name; }),
            all.end());
  all.push_back(info);
}

std::vector<PluginInfo> all_plugins() {
  std::vector<PluginInfo> out = catalogue();
  std::sort(out.begin(), out.end(), [](const PluginInfo& a, const PluginInfo& b) {
    return std::tie(a.kind, a.name) < std::tie(b.kind, b.name);
  });
  return out;
}

PluginParams::PluginParams(const PluginInfo& info, const nlohmann::json& given) : info_(&info) {
  values_ = nlohmann::json::object();
  for (const ParamSpec& spec : info.params) values_[spec.name] = spec.default_value;
  if (given.is_null()) return;
  if (!given.is_object())
    user_error("parameters of ", info.kind, " '", info.name, "' must be a mapping of name to value");
  std::vector<std::string> valid;
  for (const ParamSpec& spec : info.params) valid.push_back(spec.name);
  for (const auto& [key, value] : given.items()) {
    auto spec = std::find_if(info.params.begin(), info.params.end(), [&](const ParamSpec& s) { return s.name == key; });
    if (spec == info.params.end())
      user_error(info.kind, " '", info.name, "' has no parameter '", key, "'; valid parameters: ", join_names(valid));
    if (!matches(spec->type, value))
      user_error("parameter '", key, "' of ", info.kind, " '", info.name, "' must be a ", type_name(spec->type),
                 ", got ", value.dump());
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
  user_error("unknown ", kind, " '", name, "'; valid names: ", join_names(valid));
}

void load_plugin_library(const std::string& path) {
  // RTLD_GLOBAL so a plugin's own dependencies can see Tessel's symbols and each other's.
  if (!dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL))
    user_error("cannot load plugin library '", path, "': ", dlerror());
}

}  // namespace tessel
