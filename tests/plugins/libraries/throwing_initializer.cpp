// A broken plugin library for the tests: a global object whose constructor throws while the
// library loads, outside any registration. The exception cannot cross dlopen; loading it must end
// the program with one line naming the library and exit status 2, not an abort.
#include <stdexcept>

namespace {

struct Settings {
  Settings() { throw std::runtime_error("settings file missing"); }
};

Settings settings;

}  // namespace
