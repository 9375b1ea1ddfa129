// Printing and parsing of DataType names.
#include "ir/type.h"

#include "support/error.h"

namespace tessel {

std::string DataType::str() const {
  std::string base;
  if (is_bool()) {
    base = "bool";
  } else {
    switch (code) {
      case TypeCode::Int: base = "int"; break;
      case TypeCode::UInt: base = "uint"; break;
      case TypeCode::Float: base = "float"; break;
      case TypeCode::Handle: return "handle";
    }
    base += std::to_string(bits);
  }
  return lanes > 1 ? base + "x" + std::to_string(lanes) : base;
}

DataType parse_data_type(const std::string& name) {
  for (DataType t : {DataType::int8(), DataType::int32(), DataType::int64(), DataType::float32(),
                     DataType::boolean(), DataType{TypeCode::UInt, 8, 1}}) {
    if (t.str() == name) return t;
  }
  user_error("unknown data type '", name, "': use one of int8, uint8, int32, int64, float32, bool");
}

}  // namespace tessel
