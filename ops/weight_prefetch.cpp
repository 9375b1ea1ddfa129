// Software prefetch of streamed weights (see weight_prefetch.h).
#include "ops/weight_prefetch.h"

#include "support/error.h"

namespace tessel::ops {

void prefetch_weights(Stage stage, const Tensor& weights, const IterVar& loop, int64_t step_bytes,
                      int64_t bytes_ahead) {
  if (bytes_ahead <= 0) return;
  TESSEL_CHECK(step_bytes > 0, "prefetch of '", weights.name(), "': a step reads ", step_bytes, " bytes");
  stage.prefetch(weights, loop, static_cast<int>((bytes_ahead + step_bytes - 1) / step_bytes));
}

}  // namespace tessel::ops
