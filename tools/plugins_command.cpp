// `tessel plugins`: lists the plugin registry, as a table or as one JSON array; plugins loaded
// with --plugin show the library they came from, and parameters with declared ranges or choices
// show them.
#include <iostream>

#include "support/registry.h"
#include "tools/commands.h"

namespace tessel::tools {

namespace {

// "eta = 0.3  learning rate; valid range: (0, 1]": the default, then what the user may give.
void print_param(const ParamSpec& param) {
  std::cout << "      " << param.name << " = " << param.default_value.dump() << "  " << param.description;
  if (!param.allowed.empty()) std::cout << "; " << param.allowed.describe();
  std::cout << "\n";
}

void print_table(const std::vector<PluginInfo>& plugins) {
  std::string kind;
  for (const PluginInfo& p : plugins) {
    if (p.kind != kind) std::cout << (kind.empty() ? "" : "\n") << p.kind << ":\n";
    kind = p.kind;
    nlohmann::json listed = p.to_json();
    std::cout << "  " << p.name << " — " << p.description;
    if (listed.contains("library")) std::cout << "  [" << listed["library"].get<std::string>() << "]";
    std::cout << "\n";
    for (const ParamSpec& param : p.params) print_param(param);
  }
}

}  // namespace

void add_plugins_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("plugins", "list every registered plugin with its parameters");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "print one JSON array");
  cmd->callback([json] {
    std::vector<PluginInfo> plugins = all_plugins();
    if (!*json) return print_table(plugins);
    nlohmann::json out = nlohmann::json::array();
    for (const PluginInfo& p : plugins) out.push_back(p.to_json());
    std::cout << out.dump() << "\n";
  });
}

}  // namespace tessel::tools
