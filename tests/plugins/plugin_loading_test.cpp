// Plugin registration and loading rules that out-of-tree plugins rely on: one registry per
// interface however often it is asked for, the first registration of a name wins, and
// load_plugin_library refuses bad paths with a message saying what to do; broken plugin libraries
// (tests/plugins/libraries/) are reported, not fatal. Hangs and crashes of a plugin inside the
// tuner are tests/tools/broken_plugins.sh. Building, loading and
// tuning with a real out-of-tree plugin is tests/tools/plugin_install.sh.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <unistd.h>

#include "search/strategies/search_strategy.h"
#include "support/error.h"
#include "support/hash.h"
#include "support/registry.h"

using namespace tessel;

namespace {

struct Shape {
  static constexpr const char* kPluginKind = "test_shape";
  virtual ~Shape() = default;
  virtual int sides() const = 0;
};

struct Polygon : Shape {
  explicit Polygon(int n) : n(n) {}
  int sides() const override { return n; }
  int n;
};

struct Colour {
  static constexpr const char* kPluginKind = "test_colour";
};

PluginInfo info(const std::string& name) { return PluginInfo{"", name, "a test shape", {}}; }

Registry<Shape>::Factory polygon(int n) {
  return [n](const PluginParams&) { return std::make_unique<Polygon>(n); };
}

size_t catalogue_count(const std::string& kind, const std::string& name) {
  size_t count = 0;
  for (const PluginInfo& p : all_plugins()) count += p.kind == kind && p.name == name;
  return count;
}

// A fresh temporary directory, removed at the end of the test.
struct TempDir {
  std::filesystem::path path = std::filesystem::temp_directory_path() /
                               ("tessel_plugins_" + std::to_string(::getpid()));
  TempDir() { std::filesystem::create_directories(path); }
  ~TempDir() { std::filesystem::remove_all(path); }
};

}  // namespace

TEST_CASE("each interface has exactly one registry", "[plugins]") {
  CHECK(&Registry<Shape>::instance() == &Registry<Shape>::instance());
  CHECK(static_cast<void*>(&Registry<Shape>::instance()) != static_cast<void*>(&Registry<Colour>::instance()));
}

TEST_CASE("a second plugin of the same kind and name is refused; the first stays", "[plugins]") {
  PluginInfo triangle = info("test_triangle");
  triangle.kind = Shape::kPluginKind;
  Registry<Shape>::instance().add(triangle, polygon(3));
  Registry<Shape>::instance().add(triangle, polygon(4));
  CHECK(Registry<Shape>::instance().create("test_triangle")->sides() == 3);
  CHECK(catalogue_count("test_shape", "test_triangle") == 1);
  CHECK_FALSE(add_plugin_info(triangle));
}

TEST_CASE("bad plugin paths fail with what is wrong and what to do", "[plugins][errors]") {
  TempDir dir;
  CHECK_THROWS_WITH(load_plugin_library((dir.path / "libmissing.so").string()),
                    Catch::Contains("no such file") && Catch::Contains("docs/plugins.md"));
  CHECK_THROWS_WITH(load_plugin_library(dir.path.string()), Catch::Contains("not a file"));
  std::filesystem::path text = dir.path / "libtext.so";
  std::ofstream(text) << "not an ELF file\n";
  CHECK_THROWS_WITH(load_plugin_library(text.string()),
                    Catch::Contains("cannot load plugin library") && Catch::Contains("built against this Tessel"));
  CHECK_THROWS_AS(load_plugin_library(""), UserError);
}

TEST_CASE("a library already loaded as part of the program is no plugin", "[plugins][errors]") {
  // libtessel.so is loaded (this program links it); earlier, such a library (libz) passed as a
  // plugin that registered nothing.
  std::string library = std::string(TESSEL_BINARY_DIR) + "/libtessel.so";
  size_t before = all_plugins().size();
  CHECK_THROWS_WITH(load_plugin_library(library), Catch::Contains("registers no plugins") &&
                                                      Catch::Contains("already loaded as a library this program uses"));
  CHECK(all_plugins().size() == before);
}

namespace {
std::string test_plugin(const std::string& name) { return std::string(TESSEL_BINARY_DIR) + "/lib" + name + ".so"; }
}  // namespace

TEST_CASE("a registration that throws is reported with the plugin and the message", "[plugins][errors]") {
  CHECK_THROWS_WITH(load_plugin_library(test_plugin("throwing_registration")),
                    Catch::Contains("plugin library '" + test_plugin("throwing_registration") + "'") &&
                        Catch::Contains("registering strategy 'throwing_registration' threw: cannot read my defaults"));
}

TEST_CASE("a factory returning null is an error naming the plugin; a second load does nothing", "[plugins][errors]") {
  load_plugin_library(test_plugin("null_factory"));
  CHECK_NOTHROW(load_plugin_library(test_plugin("null_factory")));
  CHECK_THROWS_WITH(Registry<search::SearchStrategy>::instance().create("null_factory"),
                    Catch::Contains("strategy 'null_factory' (plugin library '" + test_plugin("null_factory") + "')") &&
                        Catch::Contains("its factory returned no object"));
}

TEST_CASE("a loaded library is recorded with the hash of its file, which its plugins' run keys carry", "[plugins]") {
  std::string path = test_plugin("null_factory");
  load_plugin_library(path);
  std::ifstream in(path, std::ios::binary);
  std::string hash = fnv1a64_hex(std::string(std::istreambuf_iterator<char>(in), {}));
  CHECK(plugin_library_hash("strategy", "null_factory") == hash);
  CHECK(plugin_library_hash("strategy", "random") == "");
  CHECK(plugin_libraries_key({{"strategy", "null_factory"}, {"cost_model", "none"}, {"backend", "llvm_cpu"}}) ==
        " plugins=" + hash);
  std::vector<PluginLibrary> loaded = loaded_plugin_libraries();
  auto it = std::find_if(loaded.begin(), loaded.end(), [&](const PluginLibrary& l) { return l.path == path; });
  REQUIRE(it != loaded.end());
  CHECK(it->hash == hash);
  CHECK(it->plugins == std::vector<std::string>{"strategy/null_factory"});
  CHECK(it->to_json()["fnv1a64"] == hash);
}

TEST_CASE("a factory throwing a standard exception is the plugin's failure", "[plugins][errors]") {
  PluginInfo throwing = info("test_throwing");
  throwing.kind = Shape::kPluginKind;
  Registry<Shape>::instance().add(throwing, [](const PluginParams&) -> std::unique_ptr<Shape> {
    throw std::bad_alloc();
  });
  CHECK_THROWS_MATCHES(Registry<Shape>::instance().create("test_throwing"), UserError,
                       Catch::Message("test_shape 'test_throwing' could not be created: std::bad_alloc"));
}
