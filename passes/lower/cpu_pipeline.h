// The lowering pipeline of CPU targets: from a schedule to the loop program the CPU back ends
// compile, under the contract of passes/lower/lower.h. It is registered as the lowering_pipeline
// plugins llvm_cpu and c_source (passes/lower/pipeline.h).
#pragma once
#include "passes/lower/pipeline.h"

namespace tessel {

// The passes, phase by phase (passes/lower/cpu_pipeline.cpp lists them).
LoweringPipeline cpu_pipeline(const Target& target);

}  // namespace tessel
