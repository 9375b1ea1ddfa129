// Plugin registration and loading rules that out-of-tree plugins rely on: one registry per
// interface however often it is asked for, the first registration of a name wins, and
// load_plugin_library refuses bad paths with a message saying what to do. Building, loading and
// tuning with a real out-of-tree plugin is tests/tools/plugin_install.sh.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "support/error.h"
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

TEST_CASE("loading a library that is already loaded does nothing", "[plugins]") {
  // libtessel.so itself is loaded (this program links it) and registers nothing new when asked again.
  std::string library = std::string(TESSEL_BINARY_DIR) + "/libtessel.so";
  size_t before = all_plugins().size();
  CHECK_NOTHROW(load_plugin_library(library));
  CHECK(all_plugins().size() == before);
}
