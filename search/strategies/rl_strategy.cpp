// Registration of the "rl" strategy (search/strategies/rl_strategy.h); its libtorch code is in
// libtessel_torch.so (search/strategies/torch/), fetched on first creation.
#include "search/strategies/rl_strategy.h"

#include "support/error.h"
#include "support/registry.h"
#include "support/torch_library.h"

namespace tessel::search {

namespace {

// The factory libtessel_torch.so exports (search/strategies/torch/rl_strategy.cpp).
using RlFactory = SearchStrategy* (*)(const RlOptions* options);
constexpr const char* kFactorySymbol = "tessel_create_rl_strategy";

void check_range(const char* name, double value, double low, double high, bool open_low) {
  bool ok = (open_low ? value > low : value >= low) && value <= high;
  if (!ok)
    user_error("strategy rl: parameter '", name, "' must be in ", open_low ? "(" : "[", low, ", ", high, "], got ",
               value);
}

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
      seed_param(),
      {"learning_rate", ParamType::Float, d.learning_rate, "Adam learning rate of the policy"},
      {"hidden", ParamType::Int, d.hidden, "width of the policy's GRU state and choice embeddings"},
      {"entropy", ParamType::Float, d.entropy, "weight of the entropy bonus (exploration)"},
      {"baseline_decay", ParamType::Float, d.baseline_decay, "decay of the moving-average reward baseline"},
      {"updates", ParamType::Int, d.updates, "policy-gradient steps per measured batch (PPO-clipped after the first)"},
      {"clip", ParamType::Float, d.clip, "PPO clip of the probability ratio in the repeated steps"},
      {"resample", ParamType::Int, d.resample, "sampling rounds per batch before filling with random configurations"},
  };
}

}  // namespace

void check_rl_options(const RlOptions& o) {
  check_range("learning_rate", o.learning_rate, 0, 10, true);
  check_range("hidden", o.hidden, 1, 4096, false);
  check_range("entropy", o.entropy, 0, 10, false);
  check_range("baseline_decay", o.baseline_decay, 0, 1, false);
  check_range("updates", o.updates, 1, 1000, false);
  check_range("clip", o.clip, 0, 1, true);
  check_range("resample", o.resample, 0, 1000, false);
}

std::unique_ptr<SearchStrategy> create_rl_strategy(const RlOptions& options) {
  check_rl_options(options);
  auto create = torch_library().function<RlFactory>(kFactorySymbol);
  return std::unique_ptr<SearchStrategy>(create(&options));
}

TESSEL_REGISTER_PLUGIN(SearchStrategy, rl, "policy-gradient (REINFORCE) policy over knob choices (libtorch)",
                       rl_params(), [](const PluginParams& p) { return create_rl_strategy(options_from(p)); });

}  // namespace tessel::search
