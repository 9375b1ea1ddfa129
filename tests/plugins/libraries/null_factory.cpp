// A broken plugin library for the tests: its strategy's factory returns null. Creating it must
// be an error naming the plugin, not a null pointer the tuner calls.
#include "search/strategies/search_strategy.h"
#include "support/registry.h"

TESSEL_REGISTER_PLUGIN(tessel::search::SearchStrategy, null_factory, "its factory returns nothing",
                       std::vector<tessel::ParamSpec>{tessel::search::seed_param()},
                       [](const tessel::PluginParams&) { return std::unique_ptr<tessel::search::SearchStrategy>(); });
