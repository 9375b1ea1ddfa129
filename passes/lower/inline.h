// compute_inline: substitutes the bodies of inlined stages into the expressions that read them,
// so an inlined stage never gets a loop nest or storage of its own.
#pragma once
#include <unordered_map>

#include "ir/schedule.h"

namespace tessel {

// The body of every computed stage that is not inlined, keyed by its operation, with all
// inlined producers (transitively) substituted at their read sites.
std::unordered_map<const OperationNode*, Expr> inline_stages(const Schedule& sch);

}  // namespace tessel
