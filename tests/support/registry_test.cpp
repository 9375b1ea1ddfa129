// Plugin registry: creation by name with parameters, defaults, and the errors for unknown names,
// unknown parameters and mistyped values (each listing what is valid).
#include <catch2/catch.hpp>

#include "support/error.h"
#include "support/registry.h"

using namespace tessel;

namespace {

struct Greeter {
  static constexpr const char* kPluginKind = "greeter";
  virtual ~Greeter() = default;
  virtual std::string greet() const = 0;
};

struct RepeatingGreeter : Greeter {
  RepeatingGreeter(std::string w, int64_t n) : word(std::move(w)), times(n) {}
  std::string greet() const override {
    std::string out;
    for (int64_t i = 0; i < times; ++i) out += word;
    return out;
  }
  std::string word;
  int64_t times;
};

TESSEL_REGISTER_PLUGIN(Greeter, repeat, "says a word several times",
                       (std::vector<ParamSpec>{{"word", ParamType::String, "hi", "what to say"},
                                               {"times", ParamType::Int, 2, "how often"}}),
                       [](const PluginParams& p) {
                         return std::make_unique<RepeatingGreeter>(p.get_string("word"), p.get_int("times"));
                       });

}  // namespace

TEST_CASE("plugins are created by name with defaults and overrides", "[registry]") {
  auto& registry = Registry<Greeter>::instance();
  CHECK(registry.create("repeat")->greet() == "hihi");
  CHECK(registry.create("repeat", {{"times", 3}, {"word", "yo"}})->greet() == "yoyoyo");
}

TEST_CASE("the catalogue lists registered plugins with kind and parameters", "[registry]") {
  bool found = false;
  for (const PluginInfo& p : all_plugins()) {
    if (p.kind != "greeter") continue;
    found = true;
    nlohmann::json j = p.to_json();
    CHECK(j["name"] == "repeat");
    CHECK(j["params"][1]["name"] == "times");
    CHECK(j["params"][1]["default"] == 2);
  }
  CHECK(found);
}

TEST_CASE("unknown plugins and parameters fail with the valid names", "[registry][errors]") {
  auto& registry = Registry<Greeter>::instance();
  CHECK_THROWS_WITH(registry.create("shout"), Catch::Contains("unknown greeter 'shout'") && Catch::Contains("repeat"));
  CHECK_THROWS_WITH(registry.create("repeat", {{"volume", 3}}),
                    Catch::Contains("no parameter 'volume'") && Catch::Contains("word, times"));
  CHECK_THROWS_WITH(registry.create("repeat", {{"times", "many"}}),
                    Catch::Contains("'times'") && Catch::Contains("must be a int"));
  CHECK_THROWS_AS(registry.create("repeat", nlohmann::json::array({1})), UserError);
  CHECK_THROWS_WITH(load_plugin_library("/nonexistent/libnothing.so"), Catch::Contains("cannot load plugin library"));
}
