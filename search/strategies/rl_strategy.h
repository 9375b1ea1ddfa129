// The "rl" search strategy: a policy over knob choices trained by policy gradient (REINFORCE) on
// the measured throughput.
//
// The policy is autoregressive, like the controller of neural architecture search: a GRU cell
// steps over the knobs that have a choice; at each knob a softmax head reads the GRU state and
// gives the probabilities of that knob's choices, and the choice made is embedded as the next
// step's input, so later knobs are conditioned on earlier ones. Each batch is sampled from the
// policy (a configuration already measured or proposed is resampled; what sampling cannot fill,
// the base class fills with random ones). After measurement each configuration gets the reward
//   r = GFLOP/s / best GFLOP/s so far   (0 for a failure)
// and the policy takes `updates` Adam steps on
//   -mean((r - b) · log π(config)) - entropy · mean(H(π))
// where b is a moving average of the batch-mean reward (decay `baseline_decay`). With updates > 1
// the steps after the first use PPO's clipped ratio π/π_old (clip `clip`), which keeps the
// reused batch close to on-policy. Earlier records (on resume) train the policy the same way.
//
// The libtorch code lives in libtessel_torch.so (search/strategies/torch/), loaded on the first
// creation (support/torch_library.h); this part registers the plugin and declares the valid ranges
// of its parameters, so `tessel plugins` lists it and the registry checks its parameters without
// loading libtorch. Deterministic for a seed: the network is
// initialized from `seed`, sampling draws from the strategy's own generator, and libtorch runs on
// one thread (which also keeps it off the cores the measured kernels use).
#pragma once
#include <cstdint>
#include <memory>

#include "search/strategies/search_strategy.h"

namespace tessel::search {

struct RlOptions {
  uint64_t seed = 0;
  double learning_rate = 0.03;  // Adam
  int hidden = 32;              // GRU state and choice-embedding width
  double entropy = 0.01;        // weight of the entropy bonus
  double baseline_decay = 0.9;  // moving-average baseline: b <- decay * b + (1 - decay) * mean(r)
  int updates = 2;              // gradient steps per measured batch
  double clip = 0.2;            // PPO ratio clip for the steps after the first
  int resample = 8;             // sampling rounds per batch before falling back to random configurations
};

// Creates the strategy, loading libtessel_torch.so on first use; throws UserError if it cannot be
// loaded. The options are taken as given: their valid ranges are declared by the "rl" plugin's
// parameters, which the registry checks when the strategy is created by name.
std::unique_ptr<SearchStrategy> create_rl_strategy(const RlOptions& options);

}  // namespace tessel::search
