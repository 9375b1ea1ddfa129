// The rules for numbers a user gives Tessel: on the command line, in an experiment config, or as a
// plugin parameter. Each kind of number (threads, trials, seeds, ...) has one range, the same
// wherever it is given, with an upper bound so that accepted input never asks for unbounded time
// or memory (10^5 threads, 10^9 annealing chains, a grid of a million runs). Numbers are read
// by one parser: decimal only (no hex, octal or trailing junk), and a value beyond the range —
// also one too large for 64 bits — is refused with the range, never wrapped or saturated.
//
//   int64_t trials = parse_integer("--trials", "200", limits::trials());      // 200
//   parse_integer("--trials", "99999999999999999999", limits::trials());
//     // UserError: --trials is 99999999999999999999; valid range: [1, 1000000]
//
// Plugin parameters state the same ranges on their ParamSpec (`Allowed`), e.g.
// {"nthread", ParamType::Int, 1, "threads", limits::threads()}, and the registry enforces them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "support/registry.h"

namespace tessel {

namespace limits {

inline constexpr int64_t kMaxThreads = 256;          // kernel, compile and training threads
inline constexpr int64_t kMaxTrials = 1'000'000;     // trials of one run
inline constexpr int64_t kMaxBatch = 4096;           // configurations measured per batch
inline constexpr int64_t kMaxRepeats = 10'000;       // timed samples per measurement
inline constexpr int64_t kMaxSelect = 64;            // candidates of a final selection
inline constexpr double kMaxTimeoutS = 86'400;       // seconds one measurement or plugin call may take
inline constexpr int64_t kMaxIterations = 1'000'000; // training epochs, boosting rounds, steps per round
inline constexpr int64_t kMaxPopulation = 4096;      // candidates a strategy keeps at once (chains, parents)
inline constexpr int64_t kMaxGridRuns = 10'000;      // runs (configurations x seeds) of one experiment
inline constexpr int64_t kMaxConfigBytes = 1 << 20;  // size of an experiment config file

Allowed threads();     // [1, kMaxThreads]
Allowed trials();      // [1, kMaxTrials]
Allowed batch();       // [1, kMaxBatch]
Allowed repeats();     // [1, kMaxRepeats]
Allowed select();      // [0, kMaxSelect]; 0: no final selection
Allowed percent();     // [0, 100]
Allowed seed();        // >= 0 (any non-negative 64-bit integer)
Allowed timeout_s();   // (0, kMaxTimeoutS]
Allowed iterations();  // [1, kMaxIterations]
Allowed population();  // [1, kMaxPopulation]

}  // namespace limits

// A decimal integer (optional sign, digits, nothing else) or nullopt, also when it does not fit
// in 64 bits.
std::optional<int64_t> read_integer(const std::string& text);
// A finite decimal number (as read_integer, or with a fraction and exponent) or nullopt.
std::optional<double> read_number(const std::string& text);

// Reads `text` as an integer within `allowed`; `what` names it in messages ("--trials", "trials").
// Throws UserError "WHAT must be an integer, got 'TEXT'" or "WHAT is TEXT; valid range: ...".
int64_t parse_integer(const std::string& what, const std::string& text, const Allowed& allowed);
// The same for a number ("--timeout", "1.5").
double parse_number(const std::string& what, const std::string& text, const Allowed& allowed);

// An unquoted value as a plugin parameter takes it, the same from `--param k=v` and from YAML:
// an integer or number when it reads as one, true or false, else the text as a string.
nlohmann::json typed_scalar(const std::string& text);

}  // namespace tessel
