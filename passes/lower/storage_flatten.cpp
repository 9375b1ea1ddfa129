// Storage flattening (see storage_flatten.h).
#include "passes/lower/storage_flatten.h"

#include <optional>

#include "ir/mutator.h"
#include "passes/arith/simplify.h"
#include "support/error.h"

namespace tessel {

namespace {

// Where one tensor lives: its buffer and the region of the tensor the buffer holds.
struct Placement {
  Buffer buffer;
  std::vector<Expr> mins;
  std::vector<int64_t> extents;

  Expr flat_index(const std::vector<Expr>& indices) const {
    Expr flat = make_zero(DataType::int32());
    for (size_t d = 0; d < indices.size(); ++d) flat = flat * make_int(extents[d]) + (indices[d] - mins[d]);
    return simplify(flat);
  }
};

class Flattener : public IRMutator {
 public:
  explicit Flattener(const std::unordered_map<const OperationNode*, FuncArg>& args) {
    for (const auto& [op, arg] : args)
      placements_[op] = {arg.buffer, std::vector<Expr>(arg.shape.size(), make_zero(DataType::int32())), arg.shape};
  }

 protected:
  Stmt mutate_node(const Realize* op, const Stmt& self) override {
    Placement p{Buffer(op->op->name, op->op->dtype, op->scope), {}, {}};
    int64_t size = 1;
    for (const Range& r : op->bounds) {
      const int64_t* extent = as_const_int(r.extent);
      TESSEL_CHECK(extent, "realize of ", op->op->name, " with a non-constant extent");
      p.mins.push_back(r.min);
      p.extents.push_back(*extent);
      size *= *extent;
    }
    auto it = placements_.find(op->op.get());
    std::optional<Placement> shadowed = it != placements_.end() ? std::optional<Placement>(it->second) : std::nullopt;
    placements_[op->op.get()] = p;
    Stmt body = mutate(op->body);
    if (shadowed)
      placements_[op->op.get()] = *shadowed;
    else
      placements_.erase(op->op.get());
    return make_allocate(p.buffer, make_int(size), body);
  }

  Stmt mutate_node(const Provide* op, const Stmt& self) override {
    bool changed = false;
    std::vector<Expr> indices = mutate_all(op->indices, &changed);
    const Placement& p = placement(op->op.get(), op->op->name);
    return make_store(p.buffer, p.flat_index(indices), mutate(op->value));
  }

  Expr mutate_node(const TensorRead* op, const Expr& self) override {
    bool changed = false;
    std::vector<Expr> indices = mutate_all(op->indices, &changed);
    const Placement& p = placement(op->op.get(), op->op->name);
    return load(p.buffer, p.flat_index(indices));
  }

 private:
  const Placement& placement(const OperationNode* op, const std::string& name) const {
    auto it = placements_.find(op);
    if (it == placements_.end())
      user_error("tensor '", name, "' is read or written by the lowered function but is neither one of its ",
                 "arguments nor computed by the schedule; add it to the arguments passed to lower()");
    return it->second;
  }

  std::unordered_map<const OperationNode*, Placement> placements_;
};

}  // namespace

Stmt flatten_storage(const Stmt& body, const std::unordered_map<const OperationNode*, FuncArg>& args) {
  return Flattener(args).mutate(body);
}

}  // namespace tessel
