// tessel/plugin.h: the one header a plugin includes. It brings every plugin kind's interface and
// the vocabulary of registration into one namespace, tessel::plugin, whatever layer (and C++
// namespace) each interface lives in, so a plugin file reads the same whichever kind it adds.
// The registration macro is TESSEL_REGISTER_PLUGIN (support/registry.h). docs/plugins.md walks
// through a strategy and a cost model; docs/examples/plugin/in_order.cpp is a complete minimal
// strategy in one file:
//
//   #include "tessel/plugin.h"
//   using namespace tessel::plugin;
//   class InOrder : public SearchStrategy { ... propose, observe ... };
//   TESSEL_REGISTER_PLUGIN(SearchStrategy, in_order, "...", {}, [](const PluginParams& p) { ... });
#pragma once
#include "backends/backend.h"
#include "costmodels/cost_model.h"
#include "costmodels/features.h"
#include "ir/graph/op.h"
#include "ops/op_schedule.h"
#include "passes/graph/graph_pass.h"
#include "passes/lower/lower_pass.h"
#include "passes/lower/pipeline.h"
#include "search/spaces/schedule_template.h"
#include "search/spaces/workload_operator.h"
#include "search/strategies/search_strategy.h"
#include "support/error.h"
#include "support/registry.h"

namespace tessel::plugin {

// The plugin kinds, by the kind name `tessel plugins` lists them under.
using search::SearchStrategy;    // strategy: which configurations to measure next
using tessel::CostModel;         // cost_model: predicts which programs run fastest
using search::ScheduleSpace;     // space: a workload's schedule template for a target
using search::WorkloadOperator;  // operator: a tunable operator's tensor expression
using tessel::LowerPass;         // lower_pass: rewrites the loop program in a pipeline phase
using tessel::PipelineFactory;   // lowering_pipeline: a target's list of lowering passes
using graph::GraphPass;          // graph_pass: rewrites a model's dataflow graph
using graph::GraphOp;            // graph_op: a model operator as a tensor expression
using ops::OpSchedule;           // schedule: an operator's schedule for a target
using tessel::Backend;           // backend: compiles lowered programs

// Declaring and reading parameters, and refusing bad input.
using tessel::Allowed;
using tessel::ParamSpec;
using tessel::ParamType;
using tessel::PluginParams;
using tessel::user_error;
using tessel::UserError;

// What strategies and cost models exchange with the tuner.
using search::Candidate;
using search::TrialOutcome;
using tessel::normalized_throughput;
using tessel::ProgramFeatures;

}  // namespace tessel::plugin
