// Keeps parallelism to one level: a Parallel loop inside another Parallel loop becomes Serial, as
// the back ends' thread pools run one parallel region at a time.
#pragma once
#include "ir/stmt.h"

namespace tessel {

Stmt serialize_nested_parallel(const Stmt& s);

}  // namespace tessel
