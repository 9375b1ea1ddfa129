// Ramp/Broadcast arithmetic rules (see vector_algebra.h).
#include "passes/arith/vector_algebra.h"

#include <algorithm>

namespace tessel::arith {

namespace {

// The scalar a broadcast (or a scalar standing for one) holds, or undefined.
Expr broadcast_value(const Expr& e) {
  if (auto* b = e.as<Broadcast>()) return b->value;
  if (e.type().lanes == 1) return e;
  return Expr();
}

Expr combine_ramp(NodeKind kind, const Ramp* r, const Expr& other, bool ramp_first) {
  if (!r->base.type().is_index()) return Expr();
  if (Expr scalar = broadcast_value(other); scalar.defined()) {
    switch (kind) {
      case NodeKind::Add: return ramp(r->base + scalar, r->stride, r->lanes);
      case NodeKind::Sub:
        if (ramp_first) return ramp(r->base - scalar, r->stride, r->lanes);
        return ramp(scalar - r->base, make_zero(r->stride.type()) - r->stride, r->lanes);
      case NodeKind::Mul: return ramp(r->base * scalar, r->stride * scalar, r->lanes);
      default: return Expr();
    }
  }
  auto* other_ramp = other.as<Ramp>();
  if (!other_ramp || other_ramp->lanes != r->lanes) return Expr();
  const Ramp* first = ramp_first ? r : other_ramp;
  const Ramp* second = ramp_first ? other_ramp : r;
  if (kind == NodeKind::Add) return ramp(first->base + second->base, first->stride + second->stride, r->lanes);
  if (kind == NodeKind::Sub) return ramp(first->base - second->base, first->stride - second->stride, r->lanes);
  return Expr();
}

}  // namespace

Expr combine_vectors(NodeKind kind, const Expr& a, const Expr& b) {
  int lanes = std::max(a.type().lanes, b.type().lanes);
  if (lanes == 1) return Expr();
  if (auto* r = a.as<Ramp>()) return combine_ramp(kind, r, b, true);
  if (auto* r = b.as<Ramp>()) return combine_ramp(kind, r, a, false);
  Expr sa = broadcast_value(a), sb = broadcast_value(b);
  if (!sa.defined() || !sb.defined()) return Expr();
  return broadcast(make_binary(kind, sa, sb), lanes);
}

}  // namespace tessel::arith
