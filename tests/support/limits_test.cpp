// The one parser and the ranges of user-given numbers (support/limits.h): decimal only, values
// beyond 64 bits refused as out of range rather than saturated, and the messages the command line
// and experiment configs share.
#include <catch2/catch.hpp>

#include "support/error.h"
#include "support/limits.h"

using namespace tessel;

TEST_CASE("integers are decimal, whole and within 64 bits", "[support][limits]") {
  CHECK(read_integer("42") == 42);
  CHECK(read_integer("-7") == -7);
  CHECK(read_integer("+7") == 7);
  CHECK(read_integer("007") == 7);
  CHECK(read_integer("9223372036854775807") == INT64_MAX);
  for (const char* bad : {"", "-", "+", "+-1", "0x10", "1e3", "1.0", " 1", "1 ", "12abc", "99999999999999999999", "nan"})
    CHECK_FALSE(read_integer(bad).has_value());
}

TEST_CASE("numbers are finite decimals", "[support][limits]") {
  CHECK(read_number("1.5") == 1.5);
  CHECK(read_number("-2e3") == -2000);
  CHECK(read_number(".5") == 0.5);
  CHECK(read_number("+3") == 3);
  for (const char* bad : {"", "inf", "nan", "-inf", "1e400", "0x1p3", "1,5", "e5", "."}) CHECK_FALSE(read_number(bad).has_value());
}

TEST_CASE("a number out of its kind's range is refused with the range", "[support][limits]") {
  CHECK(parse_integer("--trials", "200", limits::trials()) == 200);
  CHECK_THROWS_WITH(parse_integer("--trials", "99999999999999999999", limits::trials()),
                    "--trials is 99999999999999999999; valid range: [1, 1000000]");
  CHECK_THROWS_WITH(parse_integer("--threads", "100000", limits::threads()), "--threads is 100000; valid range: [1, 256]");
  CHECK_THROWS_WITH(parse_integer("--seed", "-1", limits::seed()), "--seed is -1; valid range: >= 0");
  CHECK_THROWS_WITH(parse_integer("--select", "-1", limits::select()), "--select is -1; valid range: [0, 64]");
  CHECK_THROWS_WITH(parse_integer("--trials", "1e3", limits::trials()), "--trials must be an integer, got '1e3'");
  CHECK(parse_number("--timeout", "2.5", limits::timeout_s()) == 2.5);
  CHECK_THROWS_WITH(parse_number("--timeout", "0", limits::timeout_s()), "--timeout is 0; valid range: (0, 86400]");
  CHECK_THROWS_WITH(parse_number("--timeout", "soon", limits::timeout_s()), "--timeout must be a number, got 'soon'");
}

TEST_CASE("plugin parameter values are typed by one rule", "[support][limits]") {
  CHECK(typed_scalar("3") == nlohmann::json(3));
  CHECK(typed_scalar("3").is_number_integer());
  CHECK(typed_scalar("0.25") == nlohmann::json(0.25));
  CHECK(typed_scalar("true") == nlohmann::json(true));
  CHECK(typed_scalar("false") == nlohmann::json(false));
  CHECK(typed_scalar("yes") == nlohmann::json("yes"));
  CHECK(typed_scalar("0x10") == nlohmann::json("0x10"));
  CHECK(typed_scalar("rank:pairwise") == nlohmann::json("rank:pairwise"));
  CHECK(typed_scalar("99999999999999999999").is_number_float());  // an Int parameter then refuses it
}

TEST_CASE("every built-in plugin parameter that sizes work is bounded above", "[support][limits]") {
  // Threads, iteration counts and populations: a plugin accepting any value of these asks for
  // unbounded memory or time from accepted input.
  int checked = 0;
  for (const PluginInfo& info : all_plugins())
    for (const ParamSpec& spec : info.params) {
      bool sizes_work = spec.name == "threads" || spec.name == "nthread" || spec.name == "chains" ||
                        spec.name == "population" || spec.name == "pool" || spec.name == "rounds" ||
                        spec.name == "epochs" || spec.name == "steps" || spec.name == "hidden";
      if (!sizes_work) continue;
      INFO(info.kind << " '" << info.name << "' parameter " << spec.name);
      CHECK(spec.allowed.max.has_value());
      ++checked;
    }
  CHECK(checked >= 8);  // model_based's chains, pool, steps, threads; genetic's population; xgboost's ...
}
