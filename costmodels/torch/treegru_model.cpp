// The "treegru" cost model: a child-sum TreeGRU over the loop tree of a program. Each node's
// state is a GRU cell applied to its embedded features with the sum of its children's states as
// the previous state, computed bottom-up; a linear head scores the root's state. Nodes of all
// programs of a batch are processed together, one height (distance to the deepest leaf below)
// at a time.
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/rnn.h>

#include <algorithm>

#include "costmodels/torch/neural_models_internal.h"
#include "costmodels/torch/neural_training.h"

namespace tessel::neural {

namespace {

struct Height {
  torch::Tensor nodes;         // global indices of the nodes of this height
  torch::Tensor children;      // global indices of their children
  torch::Tensor child_parent;  // for each child, its parent's position within `nodes`
};

struct TreeBatch : Batch {
  torch::Tensor features;  // all nodes x kTreeNodeFeatures, standardized
  std::vector<Height> heights;
  torch::Tensor roots;  // global index of each program's root
};

torch::Tensor node_rows(const std::vector<ProgramFeatures>& x) {
  int64_t total = 0;
  for (const ProgramFeatures& f : x) total += static_cast<int64_t>(f.tree.nodes.size());
  torch::Tensor rows = torch::empty({total, kTreeNodeFeatures}, torch::kFloat32);
  float* out = rows.data_ptr<float>();
  for (const ProgramFeatures& f : x)
    for (const LoopTreeNode& n : f.tree.nodes) out = std::copy(n.features.begin(), n.features.end(), out);
  return rows;
}

torch::Tensor index_tensor(const std::vector<int64_t>& v) { return torch::tensor(v, torch::kInt64); }

// Groups the nodes of every tree by height; children come after parents in LoopTree, so a
// reverse walk sees children first.
void schedule_heights(const std::vector<ProgramFeatures>& x, TreeBatch& batch) {
  std::vector<std::vector<int64_t>> nodes, children, child_parent;
  std::vector<int64_t> roots;
  int64_t base = 0;
  for (const ProgramFeatures& f : x) {
    const auto& tree = f.tree.nodes;
    std::vector<int> height(tree.size(), 0);
    for (size_t i = tree.size(); i-- > 0;)
      for (int c : tree[i].children) height[i] = std::max(height[i], height[c] + 1);
    for (size_t i = 0; i < tree.size(); ++i) {
      size_t h = static_cast<size_t>(height[i]);
      if (nodes.size() <= h) nodes.resize(h + 1), children.resize(h + 1), child_parent.resize(h + 1);
      for (int c : tree[i].children) {
        children[h].push_back(base + c);
        child_parent[h].push_back(static_cast<int64_t>(nodes[h].size()));
      }
      nodes[h].push_back(base + static_cast<int64_t>(i));
    }
    roots.push_back(base);
    base += static_cast<int64_t>(tree.size());
  }
  for (size_t h = 0; h < nodes.size(); ++h)
    batch.heights.push_back(Height{index_tensor(nodes[h]), index_tensor(children[h]), index_tensor(child_parent[h])});
  batch.roots = index_tensor(roots);
}

struct TreeGruNet : torch::nn::Module {
  explicit TreeGruNet(int hidden)
      : embed(register_module("embed", torch::nn::Linear(kTreeNodeFeatures, hidden))),
        cell(register_module("cell", torch::nn::GRUCell(hidden, hidden))),
        head(register_module("head", torch::nn::Linear(hidden, 1))),
        hidden(hidden) {}

  torch::Tensor forward(const TreeBatch& batch) {
    torch::Tensor inputs = torch::relu(embed->forward(batch.features));
    torch::Tensor state = torch::zeros({inputs.size(0), hidden});
    for (const Height& h : batch.heights) {
      torch::Tensor child_sum = torch::zeros({h.nodes.size(0), hidden});
      if (h.children.numel() > 0) child_sum = child_sum.index_add(0, h.child_parent, state.index_select(0, h.children));
      torch::Tensor updated = cell->forward(inputs.index_select(0, h.nodes), child_sum);
      state = state.index_copy(0, h.nodes, updated);
    }
    return head->forward(state.index_select(0, batch.roots)).squeeze(1);
  }

  torch::nn::Linear embed;
  torch::nn::GRUCell cell;
  torch::nn::Linear head;
  int hidden;
};

class TreeGruModel : public NeuralCostModel {
 public:
  explicit TreeGruModel(NeuralModelOptions options) : NeuralCostModel("treegru", std::move(options)) {}

 protected:
  void reset(const std::vector<ProgramFeatures>& x) override {
    net_ = std::make_shared<TreeGruNet>(options().hidden);
    standardizer_.fit(node_rows(x));
  }

  std::unique_ptr<Batch> encode(const std::vector<ProgramFeatures>& x) const override {
    auto batch = std::make_unique<TreeBatch>();
    batch->features = standardizer_.apply(node_rows(x));
    schedule_heights(x, *batch);
    return batch;
  }

  torch::Tensor forward(const Batch& batch) const override {
    return net_->forward(static_cast<const TreeBatch&>(batch));
  }

  torch::nn::Module& network() override { return *net_; }

 private:
  std::shared_ptr<TreeGruNet> net_;
  Standardizer standardizer_;
};

}  // namespace

std::unique_ptr<CostModel> make_treegru_model(const NeuralModelOptions& options) {
  return std::make_unique<TreeGruModel>(options);
}

}  // namespace tessel::neural
