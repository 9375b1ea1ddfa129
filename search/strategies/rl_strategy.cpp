// Registration of the "rl" strategy (search/strategies/rl_strategy.h); its libtorch code is in
// libtessel_torch.so (search/strategies/torch/), fetched on first creation.
#include "search/strategies/rl_strategy.h"

#include "support/registry.h"
#include "support/torch_library.h"

namespace tessel::search {

namespace {

// The factory libtessel_torch.so exports (search/strategies/torch/rl_strategy.cpp).
using RlFactory = SearchStrategy* (*)(const RlOptions* options);
constexpr const char* kFactorySymbol = "tessel_create_rl_strategy";

RlOptions options_from(const PluginParams& p) {
  RlOptions o;
  o.seed = static_cast<uint64_t>(p.get_int("seed"));
  o.learning_rate = p.get_float("learning_rate");
  o.hidden = static_cast<int>(p.get_int("hidden"));
  o.entropy = p.get_float("entropy");
  o.baseline_decay = p.get_float("baseline_decay");
  o.updates = static_cast<int>(p.get_int("updates"));
  o.clip = p.get_float("clip");
  o.resample = static_cast<int>(p.get_int("resample"));
  return o;
}

std::vector<ParamSpec> rl_params() {
  RlOptions d;
  return {
      {"learning_rate", ParamType::Float, d.learning_rate, "Adam learning rate of the policy",
       Allowed::above(0).at_most(10)},
      {"hidden", ParamType::Int, d.hidden, "width of the policy's GRU state and choice embeddings",
       Allowed::at_least(1).at_most(4096)},
      {"entropy", ParamType::Float, d.entropy, "weight of the entropy bonus (exploration)",
       Allowed::at_least(0).at_most(10)},
      {"baseline_decay", ParamType::Float, d.baseline_decay, "decay of the moving-average reward baseline",
       Allowed::at_least(0).at_most(1)},
      {"updates", ParamType::Int, d.updates, "policy-gradient steps per measured batch (PPO-clipped after the first)",
       Allowed::at_least(1).at_most(1000)},
      {"clip", ParamType::Float, d.clip, "PPO clip of the probability ratio in the repeated steps",
       Allowed::above(0).at_most(1)},
      {"resample", ParamType::Int, d.resample, "sampling rounds per batch before filling with random configurations",
       Allowed::at_least(0).at_most(1000)},
  };
}

}  // namespace

std::unique_ptr<SearchStrategy> create_rl_strategy(const RlOptions& options) {
  auto create = torch_library().function<RlFactory>(kFactorySymbol);
  return std::unique_ptr<SearchStrategy>(create(&options));
}

TESSEL_REGISTER_PLUGIN(SearchStrategy, rl, "policy-gradient (REINFORCE) policy over knob choices (libtorch)",
                       rl_params(), [](const PluginParams& p) { return create_rl_strategy(options_from(p)); });

}  // namespace tessel::search
