// A broken plugin library for the tests: building its plugin's parameter declarations throws
// while the library loads. Loading it must report the plugin and the message, not abort.
#include <stdexcept>

#include "search/strategies/search_strategy.h"
#include "support/registry.h"

namespace {

std::vector<tessel::ParamSpec> unreadable_params() { throw std::runtime_error("cannot read my defaults"); }

}  // namespace

TESSEL_REGISTER_PLUGIN(tessel::search::SearchStrategy, throwing_registration, "throws while registering",
                       unreadable_params(), [](const tessel::PluginParams&) {
                         return std::unique_ptr<tessel::search::SearchStrategy>();
                       });
