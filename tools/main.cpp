// The `tessel` command-line program: one subcommand per job (bench, lower, plugins). Bad input
// anywhere ends in one line on stderr saying what is wrong, and exit status 2.
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "support/error.h"
#include "support/registry.h"
#include "tools/bench_command.h"
#include "tools/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"Tessel: a tensor compiler and auto-tuning workbench"};
  app.require_subcommand(1);
  std::vector<std::string> plugin_libraries;  // loaded as they are parsed, before any subcommand runs
  app.add_option("--plugin", plugin_libraries, "shared library of out-of-tree plugins to load (repeatable)")
      ->each([](const std::string& path) { tessel::load_plugin_library(path); });
  tessel::tools::add_bench_command(app, argc, argv);
  tessel::tools::add_plugins_command(app);
  tessel::tools::add_lower_command(app);
  tessel::tools::add_tune_command(app, argc, argv);
  tessel::tools::add_records_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "tessel: " << e.what() << " (see tessel --help)\n";
    return 2;
  } catch (const tessel::UserError& e) {
    std::cerr << "tessel: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "tessel: internal error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
