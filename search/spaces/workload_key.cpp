// Canonical form and key of a tensor expression (search/spaces/workload_key.h). The writer names node
// kinds by fixed strings rather than enum values, so reordering ir/node.h does not change keys,
// and refuses node kinds it does not know rather than leaving them out of the key.
#include "search/spaces/workload_key.h"

#include <bit>
#include <cstdio>
#include <sstream>
#include <unordered_map>

#include "ir/node_list.h"
#include "ir/printer.h"
#include "support/error.h"
#include "support/hash.h"

namespace tessel::search {

namespace {

class CanonicalWriter {
 public:
  explicit CanonicalWriter(const std::vector<Tensor>& args) {
    TESSEL_CHECK(!args.empty(), "a workload has at least an output");
    for (const Tensor& t : args)
      if (t->is_placeholder()) ops_.emplace(t.get(), "in" + std::to_string(ops_.size()));
    std::vector<Tensor> order = topological_order({args.back()});
    for (const Tensor& t : order) {
      if (t->is_placeholder()) {
        TESSEL_CHECK(ops_.count(t.get()), "workload key: input '", t.name(), "' is not among the arguments");
        out_ << ops_.at(t.get()) << " = placeholder " << t.dtype().str() << shape(t.shape()) << "\n";
        continue;
      }
      std::string name = "op" + std::to_string(computes_++);
      write_compute(t, name);
      ops_.emplace(t.get(), name);
    }
  }
  std::string text() const { return out_.str(); }

 private:
  static std::string shape(const std::vector<int64_t>& dims) {
    std::string s = "[";
    for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
    return s + "]";
  }

  void write_compute(const Tensor& t, const std::string& name) {
    vars_.clear();
    out_ << name << " = compute " << t.dtype().str() << shape(t.shape()) << " axes(";
    for (size_t i = 0; i < t->axis.size(); ++i) {
      bind(t->axis[i].var(), "a" + std::to_string(i));
      out_ << (i ? "," : "");
      range(t->axis[i]->dom);
    }
    out_ << ") ";
    expr(t->body);
    out_ << "\n";
  }

  void bind(const Var& v, const std::string& name) { vars_[v.operator->()] = name; }

  void range(const Range& r) {
    out_ << "[";
    expr(r.min);
    out_ << ",+";
    expr(r.extent);
    out_ << "]";
  }

  void list(const std::vector<Expr>& items) {
    out_ << "(";
    for (size_t i = 0; i < items.size(); ++i) {
      if (i) out_ << ",";
      expr(items[i]);
    }
    out_ << ")";
  }

  void expr(const Expr& e) {
    if (!e.defined()) {
      out_ << "_";
      return;
    }
    out_ << e.type().str() << ":";
    switch (e->kind) {
#define TESSEL_CANONICAL_BINARY(T)                      \
  case NodeKind::T: {                                   \
    auto* b = e.as<T>();                                \
    out_ << #T;                                         \
    list({b->a, b->b});                                 \
    return;                                             \
  }
      TESSEL_BINARY_NODES(TESSEL_CANONICAL_BINARY)
#undef TESSEL_CANONICAL_BINARY
      case NodeKind::IntImm: out_ << e.as<IntImm>()->value; return;
      case NodeKind::FloatImm: {
        char bits[24];
        std::snprintf(bits, sizeof bits, "0x%016llx",
                      static_cast<unsigned long long>(std::bit_cast<uint64_t>(e.as<FloatImm>()->value)));
        out_ << bits;
        return;
      }
      case NodeKind::Var: {
        auto it = vars_.find(static_cast<const VarNode*>(e.get()));
        TESSEL_CHECK(it != vars_.end(), "workload key: free variable '", Var(e).name(), "' in a tensor expression");
        out_ << it->second;
        return;
      }
      case NodeKind::Not: out_ << "Not"; list({e.as<Not>()->a}); return;
      case NodeKind::Select: {
        auto* s = e.as<Select>();
        out_ << "Select";
        list({s->cond, s->true_value, s->false_value});
        return;
      }
      case NodeKind::Cast: out_ << "Cast"; list({e.as<Cast>()->value}); return;
      case NodeKind::Call: out_ << "Call." << e.as<Call>()->name; list(e.as<Call>()->args); return;
      case NodeKind::TensorRead: {
        auto* r = e.as<TensorRead>();
        auto it = ops_.find(r->op.get());
        TESSEL_CHECK(it != ops_.end(), "workload key: a read of '", r->op->name, "' before it is defined");
        out_ << "read." << it->second;
        list(r->indices);
        return;
      }
      case NodeKind::Reduce: return reduce(*e.as<Reduce>());
      case NodeKind::Let: {
        auto* l = e.as<Let>();
        out_ << "Let(";
        expr(l->value);
        bind(l->var, "l" + std::to_string(lets_++));
        out_ << ",";
        expr(l->body);
        out_ << ")";
        return;
      }
      default:
        TESSEL_CHECK(false, "workload key: node kind ", static_cast<int>(e->kind),
                     " has no place in a tensor expression");
    }
  }

  void reduce(const Reduce& r) {
    out_ << "Reduce." << reduce_op_name(r.combiner) << "(";
    for (size_t i = 0; i < r.axes.size(); ++i) {
      bind(r.axes[i].var(), "r" + std::to_string(i));
      range(r.axes[i]->dom);
    }
    out_ << ";";
    expr(r.source);
    out_ << ";";
    expr(r.condition);
    if (r.init.defined()) {
      out_ << ";init=";
      expr(r.init);
    }
    out_ << ")";
  }

  std::ostringstream out_;
  std::unordered_map<const OperationNode*, std::string> ops_;
  std::unordered_map<const VarNode*, std::string> vars_;
  size_t computes_ = 0, lets_ = 0;
};

}  // namespace

std::string canonical_form(const std::vector<Tensor>& args) { return CanonicalWriter(args).text(); }

std::string workload_key(const std::string& op, const std::vector<Tensor>& args) {
  return op + "/" + fnv1a64_hex(canonical_form(args));
}

}  // namespace tessel::search
