// Plugin registry: creation by name with parameters, defaults, and the errors for unknown names,
// unknown parameters, mistyped values and values outside a parameter's declared range or choices
// (each saying what is valid); the catalogue's JSON, including those declarations.
#include <catch2/catch.hpp>

#include <cmath>

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
                       (std::vector<ParamSpec>{
                           {"word", ParamType::String, "hi", "what to say"},
                           {"times", ParamType::Int, 2, "how often", Allowed::at_least(1).at_most(5)},
                           {"pitch", ParamType::Float, 1.0, "relative pitch", Allowed::above(0).below(2)},
                           {"tone", ParamType::String, "calm", "how it sounds", Allowed::one_of({"calm", "loud"})},
                           {"pause", ParamType::Float, 0.0, "seconds between words", Allowed::at_least(0)}}),
                       [](const PluginParams& p) {
                         return std::make_unique<RepeatingGreeter>(p.get_string("word"), p.get_int("times"));
                       });

// A kind whose every plugin takes a `seed`, as every search strategy does (common_params).
struct Seeded {
  static constexpr const char* kPluginKind = "seeded";
  static std::vector<ParamSpec> common_params() { return {{"seed", ParamType::Int, 0, "seed of its choices"}}; }
  explicit Seeded(int64_t s) : seed(s) {}
  virtual ~Seeded() = default;
  int64_t seed;
};

TESSEL_REGISTER_PLUGIN(Seeded, unseeded, "declares no seed", {},
                       [](const PluginParams& p) { return std::make_unique<Seeded>(p.get_int("seed")); });
TESSEL_REGISTER_PLUGIN(Seeded, self_seeded, "declares its seed itself, after another parameter",
                       (std::vector<ParamSpec>{{"level", ParamType::Int, 1, "how much"},
                                               {"seed", ParamType::Int, 5, "its own seed"}}),
                       [](const PluginParams& p) { return std::make_unique<Seeded>(p.get_int("seed")); });

// The message of the UserError `action` throws, or "no error".
template <typename Action>
std::string error_of(Action action) {
  try {
    action();
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

std::string creation_error(const nlohmann::json& params) {
  return error_of([&] { Registry<Greeter>::instance().create("repeat", params); });
}

PluginInfo catalogued(const std::string& kind, const std::string& name) {
  for (const PluginInfo& p : all_plugins())
    if (p.kind == kind && p.name == name) return p;
  FAIL("no " << kind << " '" << name << "' in the catalogue");
  return {};
}

nlohmann::json param_json(const PluginInfo& info, const std::string& param) {
  nlohmann::json listed = info.to_json();
  for (const nlohmann::json& p : listed["params"])
    if (p["name"] == param) return p;
  FAIL(info.name << " has no parameter " << param);
  return nullptr;
}

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

TEST_CASE("values outside a declared range are refused with one message format", "[registry][errors]") {
  CHECK(creation_error({{"times", 0}}) == "parameter 'times' of greeter 'repeat' is 0; valid range: [1, 5]");
  CHECK(creation_error({{"times", 6}}) == "parameter 'times' of greeter 'repeat' is 6; valid range: [1, 5]");
  CHECK(creation_error({{"pitch", 0}}) == "parameter 'pitch' of greeter 'repeat' is 0; valid range: (0, 2)");
  CHECK(creation_error({{"pitch", 2.0}}) == "parameter 'pitch' of greeter 'repeat' is 2.0; valid range: (0, 2)");
  CHECK(creation_error({{"pitch", -0.5}}) == "parameter 'pitch' of greeter 'repeat' is -0.5; valid range: (0, 2)");
  CHECK(creation_error({{"pause", -1e-9}}) == "parameter 'pause' of greeter 'repeat' is -1e-09; valid range: >= 0");
  CHECK_THAT(creation_error({{"pitch", std::nan("")}}), Catch::Contains("valid range: (0, 2)"));
}

TEST_CASE("a string outside its declared choices is refused with the choices", "[registry][errors]") {
  CHECK(creation_error({{"tone", "shout"}}) ==
        "parameter 'tone' of greeter 'repeat' is \"shout\"; valid values: calm, loud");
  CHECK(creation_error({{"tone", ""}}) == "parameter 'tone' of greeter 'repeat' is \"\"; valid values: calm, loud");
}

TEST_CASE("values on the boundary of a range and declared choices are accepted", "[registry]") {
  auto& registry = Registry<Greeter>::instance();
  CHECK(registry.create("repeat", {{"times", 1}})->greet() == "hi");
  CHECK(registry.create("repeat", {{"times", 5}})->greet() == "hihihihihi");
  CHECK(creation_error({{"pitch", 1e-9}}) == "no error");    // just above an open lower end
  CHECK(creation_error({{"pitch", 1.999}}) == "no error");   // just below an open upper end
  CHECK(creation_error({{"pitch", 1}}) == "no error");       // an integer for a float parameter
  CHECK(creation_error({{"pause", 0}}) == "no error");       // a closed end itself
  CHECK(creation_error({{"tone", "loud"}, {"word", "anything goes"}}) == "no error");
}

TEST_CASE("declared ranges and choices are described in words", "[registry]") {
  CHECK(Allowed::at_least(1).describe() == "valid range: >= 1");
  CHECK(Allowed::above(0).describe() == "valid range: > 0");
  CHECK(Allowed{}.at_most(8).describe() == "valid range: <= 8");
  CHECK(Allowed{}.below(0.5).describe() == "valid range: < 0.5");
  CHECK(Allowed::above(0).at_most(1).describe() == "valid range: (0, 1]");
  CHECK(Allowed::at_least(1).at_most(4096).describe() == "valid range: [1, 4096]");
  CHECK(Allowed::one_of({"a", "b"}).describe() == "valid values: a, b");
  CHECK(Allowed{}.describe().empty());
  CHECK(Allowed{}.empty());
}

TEST_CASE("the catalogue's JSON carries ranges and choices", "[registry]") {
  PluginInfo repeat = catalogued("greeter", "repeat");
  nlohmann::json times = param_json(repeat, "times");
  CHECK(times["min"] == 1);
  CHECK(times["min"].is_number_integer());  // an Int parameter's bounds are integers
  CHECK(times["max"] == 5);
  nlohmann::json pitch = param_json(repeat, "pitch");
  CHECK(pitch["exclusive_min"] == 0.0);
  CHECK(pitch["exclusive_max"] == 2.0);
  CHECK_FALSE(pitch.contains("min"));
  CHECK(param_json(repeat, "tone")["choices"] == nlohmann::json({"calm", "loud"}));
  nlohmann::json word = param_json(repeat, "word");
  CHECK(word.size() == 4);  // name, type, default, description: nothing declared, nothing listed
  // A built-in plugin declares its ranges the same way.
  nlohmann::json eta = param_json(catalogued("cost_model", "xgboost"), "eta");
  CHECK(eta["exclusive_min"] == 0.0);
  CHECK(eta["max"] == 1.0);
  CHECK(param_json(catalogued("cost_model", "xgboost"), "objective")["choices"] ==
        nlohmann::json({"rank:pairwise", "reg:squarederror"}));
  CHECK(param_json(catalogued("strategy", "genetic"), "population")["min"] == 2);
}

TEST_CASE("parameter declarations that contradict themselves are found", "[registry]") {
  CHECK(param_spec_problem({"n", ParamType::Int, 3, "", Allowed::at_least(1)}).empty());
  CHECK(param_spec_problem({"n", ParamType::Int, 0, "", Allowed::at_least(1)}) ==
        "has default 0, outside its own valid range: >= 1");
  CHECK(param_spec_problem({"n", ParamType::Float, 1.0, "", Allowed::above(1)}) ==
        "has default 1.0, outside its own valid range: > 1");
  CHECK(param_spec_problem({"s", ParamType::String, "x", "", Allowed::one_of({"a", "b"})}) ==
        "has default \"x\", outside its own valid values: a, b");
  CHECK(param_spec_problem({"s", ParamType::String, "a", "", Allowed::at_least(1)}) ==
        "declares a range, which only int and float parameters can have");
  CHECK(param_spec_problem({"n", ParamType::Int, 1, "", Allowed::one_of({"1"})}) ==
        "declares choices, which only string parameters can have");
  CHECK(param_spec_problem({"n", ParamType::Int, 1, "", Allowed::at_least(2).at_most(1)}) ==
        "has an empty range (valid range: [2, 1])");
  CHECK(param_spec_problem({"n", ParamType::Int, "1", "", {}}) == "has default \"1\", which is not an integer");
}

TEST_CASE("every built-in plugin declares its parameters consistently", "[registry]") {
  for (const PluginInfo& plugin : all_plugins())
    for (const ParamSpec& spec : plugin.params) {
      INFO(plugin.kind << " '" << plugin.name << "' parameter '" << spec.name << "'");
      CHECK(param_spec_problem(spec) == "");
    }
}

TEST_CASE("unknown plugins and parameters fail with the valid names", "[registry][errors]") {
  auto& registry = Registry<Greeter>::instance();
  CHECK_THROWS_WITH(registry.create("shout"), Catch::Contains("unknown greeter 'shout'") && Catch::Contains("repeat"));
  CHECK_THROWS_WITH(registry.create("repeat", {{"volume", 3}}),
                    Catch::Contains("no parameter 'volume'") && Catch::Contains("word, times"));
  CHECK(creation_error({{"times", "many"}}) == "parameter 'times' of greeter 'repeat' is \"many\"; it must be an integer");
  CHECK(creation_error({{"pitch", true}}) == "parameter 'pitch' of greeter 'repeat' is true; it must be a number");
  CHECK_THROWS_AS(registry.create("repeat", nlohmann::json::array({1})), UserError);
  CHECK_THROWS_WITH(load_plugin_library("/nonexistent/libnothing.so"), Catch::Contains("cannot load plugin library"));
}

TEST_CASE("an unknown plugin's message says how plugins of one's own are loaded", "[registry][errors]") {
  std::string message = error_of([] { Registry<Greeter>::instance().create("shout"); });
  CHECK_THAT(message, Catch::Contains("valid names: repeat") && Catch::Contains("tessel --plugin libmine.so"));
}

TEST_CASE("every plugin of a kind gets the kind's common parameters, declared once", "[registry]") {
  auto& registry = Registry<Seeded>::instance();
  const std::vector<ParamSpec>& added = registry.info("unseeded").params;
  REQUIRE(added.size() == 1);
  CHECK(added[0].name == "seed");
  CHECK(registry.create("unseeded")->seed == 0);
  CHECK(registry.create("unseeded", {{"seed", 7}})->seed == 7);
  // One declared by the plugin itself stays as declared (its default, its place), not twice.
  const std::vector<ParamSpec>& own = registry.info("self_seeded").params;
  REQUIRE(own.size() == 2);
  CHECK((own[0].name == "level" && own[1].name == "seed" && own[1].default_value == 5));
  CHECK(registry.create("self_seeded", {{"seed", 3}})->seed == 3);
  CHECK_THAT(error_of([] { Registry<Seeded>::instance().create("unseeded", {{"seed", "x"}}); }),
             Catch::Contains("parameter 'seed' of seeded 'unseeded' is \"x\""));
  // Declared with another type, it is refused: the tuner sets it as an integer for every plugin.
  PluginInfo wrong{"seeded", "wrong", "", {{"seed", ParamType::String, "a", "a word"}}};
  CHECK(error_of([&] { add_common_params(wrong, Seeded::common_params()); }) ==
        "it declares parameter 'seed' as a string, but every seeded takes 'seed' as an integer (seed of its "
        "choices); leave it out and the registry adds it");
}

TEST_CASE("built-in plugins come from no library: no hash, nothing in a run key", "[registry]") {
  CHECK(plugin_library_hash("greeter", "repeat") == "");
  CHECK(plugin_libraries_key({{"greeter", "repeat"}, {"seeded", "unseeded"}}) == "");
  CHECK(loaded_plugin_libraries().empty());
}
