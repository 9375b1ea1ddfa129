// The `tessel` command-line program: one subcommand per job (bench, lower, plugins, tune, ...);
// `--plugin FILE` before the subcommand loads out-of-tree plugins first. Bad input
// anywhere ends in one line on stderr saying what is wrong, and exit status 2; so does output that
// could not be written (standard output is flushed and checked before a command reports success).
#include <csignal>
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "support/error.h"
#include "support/output_file.h"
#include "support/registry.h"
#include "tools/bench_command.h"
#include "tools/commands.h"

namespace {

bool is_plugin_option(const std::string& arg) { return arg == "--plugin" || arg.rfind("--plugin=", 0) == 0; }

// Loads the libraries of every `--plugin FILE` (or `--plugin=FILE`) before the subcommand, ahead
// of setting up the command line, so that everything after sees their plugins. One given after
// the subcommand would load too late to matter, so it is an error.
void load_plugins(int argc, char** argv) {
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; ++i) {
    std::string arg = argv[i];
    if (arg == "--plugin" && i + 1 < argc)
      tessel::load_plugin_library(argv[++i]);
    else if (is_plugin_option(arg))
      tessel::load_plugin_library(arg.substr(arg.find('=') + 1));
  }
  for (; i < argc; ++i)
    if (is_plugin_option(argv[i]))
      tessel::user_error("--plugin must come before the subcommand: tessel --plugin FILE <command> ...");
}

int run(int argc, char** argv) {
  load_plugins(argc, argv);
  CLI::App app{"Tessel: a tensor compiler and auto-tuning workbench"};
  app.require_subcommand(1);
  std::vector<std::string> plugin_libraries;  // already loaded by load_plugins
  app.add_option("--plugin", plugin_libraries, "shared library of out-of-tree plugins to load (repeatable)")
      ->allow_extra_args(false);  // one file per --plugin, as load_plugins reads them
  tessel::tools::add_bench_command(app, argc, argv);
  tessel::tools::add_plugins_command(app);
  tessel::tools::add_lower_command(app);
  tessel::tools::add_tune_command(app, argc, argv);
  tessel::tools::add_tune_model_command(app);
  tessel::tools::add_records_command(app);
  tessel::tools::add_experiment_command(app, argc, argv);
  tessel::tools::add_model_commands(app, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "tessel: " << e.what() << " (see tessel --help)\n";
    return 2;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // A file-size limit (ulimit -f) then fails the write with EFBIG, which is reported like a full
  // disk, instead of killing the process with a core dump.
  std::signal(SIGXFSZ, SIG_IGN);
  try {
    int status = run(argc, argv);
    tessel::finish_stdout();
    return status;
  } catch (const tessel::UserError& e) {
    std::cerr << "tessel: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "tessel: internal error: " << e.what() << "\n";
    return 1;
  }
}
