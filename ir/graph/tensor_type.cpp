// Tensor types of graph values (ir/graph/tensor_type.h).
#include "ir/graph/tensor_type.h"

#include <cctype>
#include <sstream>

namespace tessel::graph {

int64_t TensorType::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string TensorType::str() const {
  std::ostringstream os;
  os << dtype.str() << "[";
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  os << "]";
  if (!layout.empty()) os << " " << layout;
  return os.str();
}

int layout_rank(const std::string& layout) {
  int rank = 0;
  bool after_digits = false;
  for (char c : layout) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      after_digits = true;
    } else if (std::isupper(static_cast<unsigned char>(c)) && !after_digits) {
      ++rank;
    } else if (std::islower(static_cast<unsigned char>(c)) && after_digits) {
      ++rank;
      after_digits = false;
    } else {
      return -1;
    }
  }
  return after_digits ? -1 : rank;
}

}  // namespace tessel::graph
