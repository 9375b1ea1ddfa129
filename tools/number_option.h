// Command-line options that take a number. The text is read by support/limits.h's parser and
// checked against the range of its kind there, so `--trials 99999999999999999999` gets the same
// answer as `trials: 99999999999999999999` in an experiment config, and `--select -1` or
// `--trials 1e3` a message saying what is valid rather than the option parser's own.
//
//   add_number_option(cmd, "--threads", args->threads, "kernel threads", limits::threads());
//   // --threads 100000  ->  tessel: --threads is 100000; valid range: [1, 256]
#pragma once
#include <sstream>
#include <string>
#include <type_traits>

#include <CLI/CLI.hpp>

#include "support/limits.h"

namespace tessel::tools {

// Adds `name` to `cmd`, storing the number read into `value` (whose initial value is the default
// shown by --help). T is an integer type or double.
template <typename T>
CLI::Option* add_number_option(CLI::App* cmd, const std::string& name, T& value, const std::string& help,
                               const Allowed& allowed) {
  auto read = [&value, name, allowed](const std::string& text) {
    if constexpr (std::is_floating_point_v<T>) value = parse_number(name, text, allowed);
    else value = static_cast<T>(parse_integer(name, text, allowed));
  };
  std::ostringstream shown;
  shown << value;
  return cmd->add_option_function<std::string>(name, read, help + "; " + allowed.describe())
      ->type_name(std::is_floating_point_v<T> ? "NUMBER" : "INT")
      ->default_str(shown.str());
}

}  // namespace tessel::tools
