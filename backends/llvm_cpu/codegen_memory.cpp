// CodeGen for memory and vectors: Load and Store (scalar, contiguous vector, gather/scatter),
// Ramp and Broadcast, and Allocate (an aligned stack slot when small and constant-sized, else the
// heap). Bool buffers hold one byte per element.
#include "backends/cpu_contract.h"
#include "backends/llvm_cpu/codegen.h"
#include "support/error.h"

namespace tessel::llvm_cpu {
namespace {

// Stack slots above this size risk overflowing worker-thread stacks; they go to the heap.
constexpr uint64_t kMaxStackBytes = 64 * 1024;
// Cache-line and AVX-512 register alignment for temporaries.
constexpr uint64_t kAllocAlign = 64;

// Strided loads of at most this many lanes load each lane on its own. A gather instruction costs
// about as much for 3 lanes as for 16: an NCHW -> NCHW3c transform of a 224x224 image (3-lane
// gathers across the channel planes) took 616 us on a Cascade Lake core.
constexpr int kMaxScalarizedGatherLanes = 4;

// The Ramp of a vector index whose lanes are consecutive elements, or nullptr.
const Ramp* contiguous_ramp(const Expr& index) {
  auto* ramp = index.as<Ramp>();
  return ramp && is_const_int(ramp->stride, 1) ? ramp : nullptr;
}

}  // namespace

llvm::Value* CodeGen::buffer_base(const Buffer& buffer) const {
  auto it = state_.buffers.find(buffer.get());
  if (it == state_.buffers.end())
    user_error("buffer '", buffer.name(), "' is accessed in function '", func_name_,
               "' but is neither an argument nor allocated around the access");
  return it->second;
}

llvm::Value* CodeGen::element_pointer(const Buffer& buffer, llvm::Value* index) {
  llvm::Type* element = memory_type(context_, buffer.dtype().element());
  return builder_.CreateInBoundsGEP(element, buffer_base(buffer), index);
}

llvm::Value* CodeGen::vector_pointer(const Buffer& buffer, const Expr& first_index, int lanes) {
  llvm::Type* vector = memory_type(context_, buffer.dtype().with_lanes(lanes));
  return builder_.CreateBitCast(element_pointer(buffer, emit_offset(first_index)), vector->getPointerTo());
}

void CodeGen::visit_node(const Load* op) {
  DataType t = op->type;
  llvm::Align align(t.element().bytes());
  llvm::Value* raw;
  if (!t.is_vector()) {
    raw = builder_.CreateAlignedLoad(memory_type(context_, t), element_pointer(op->buffer, emit_offset(op->index)), align);
  } else if (const Ramp* ramp = contiguous_ramp(op->index)) {
    raw = builder_.CreateAlignedLoad(memory_type(context_, t), vector_pointer(op->buffer, ramp->base, t.lanes), align);
  } else if (auto* same = op->index.as<Broadcast>()) {
    llvm::Value* scalar = builder_.CreateAlignedLoad(memory_type(context_, t.element()),
                                                     element_pointer(op->buffer, emit_offset(same->value)), align);
    raw = builder_.CreateVectorSplat(t.lanes, scalar);
  } else if (const Ramp* ramp = op->index.as<Ramp>(); ramp && t.lanes <= kMaxScalarizedGatherLanes) {
    raw = emit_scalarized_gather(op->buffer, ramp, t);
  } else {
    raw = builder_.CreateMaskedGather(memory_type(context_, t), element_pointer(op->buffer, emit_index(op->index)), align);
  }
  value_ = t.is_bool() ? builder_.CreateTrunc(raw, value_type(context_, t)) : raw;
}

llvm::Value* CodeGen::emit_scalarized_gather(const Buffer& buffer, const Ramp* index, DataType t) {
  llvm::Type* element = memory_type(context_, t.element());
  llvm::Align align(t.element().bytes());
  llvm::Value* first = emit_offset(index->base);
  llvm::Value* stride = emit_offset(index->stride);
  llvm::Value* vector = llvm::PoisonValue::get(memory_type(context_, t));
  for (int lane = 0; lane < t.lanes; ++lane) {
    llvm::Value* offset = builder_.CreateAdd(first, builder_.CreateMul(stride, llvm::ConstantInt::get(first->getType(), lane)));
    llvm::Value* scalar = builder_.CreateAlignedLoad(element, element_pointer(buffer, offset), align);
    vector = builder_.CreateInsertElement(vector, scalar, uint64_t(lane));
  }
  return vector;
}

void CodeGen::visit_node(const Store* op) {
  DataType t = op->value.type();
  if (t.element() != op->buffer.dtype().element())
    user_error("store of a ", t.str(), " value into ", op->buffer.dtype().str(), " buffer '", op->buffer.name(),
               "' in function '", func_name_, "'; cast the value to the buffer's type");
  llvm::Value* value = emit(op->value);
  if (t.is_bool()) value = builder_.CreateZExt(value, memory_type(context_, t));
  llvm::Align align(t.element().bytes());
  if (!t.is_vector()) {
    builder_.CreateAlignedStore(value, element_pointer(op->buffer, emit_offset(op->index)), align);
  } else if (const Ramp* ramp = contiguous_ramp(op->index)) {
    builder_.CreateAlignedStore(value, vector_pointer(op->buffer, ramp->base, t.lanes), align);
  } else {
    llvm::Value* index = splat_to(emit_index(op->index), t.lanes);
    builder_.CreateMaskedScatter(value, element_pointer(op->buffer, index), align);
  }
}

void CodeGen::visit_node(const Ramp* op) {
  llvm::Value* base = builder_.CreateVectorSplat(op->lanes, emit(op->base));
  llvm::Value* stride = builder_.CreateVectorSplat(op->lanes, emit(op->stride));
  std::vector<llvm::Constant*> steps;
  llvm::Type* element = value_type(context_, op->base.type());
  for (int i = 0; i < op->lanes; ++i) steps.push_back(llvm::ConstantInt::get(element, i));
  bool nsw = index_context_ && op->base.type().is_int();
  value_ = builder_.CreateAdd(base, builder_.CreateMul(stride, llvm::ConstantVector::get(steps), "", false, nsw), "",
                              false, nsw);
}

void CodeGen::visit_node(const Broadcast* op) { value_ = builder_.CreateVectorSplat(op->lanes, emit(op->value)); }

void CodeGen::visit_node(const Allocate* op) {
  check_cpu_allocatable(op->buffer, "llvm_cpu");
  llvm::Type* element = memory_type(context_, op->buffer.dtype().element());
  const int64_t* count = as_const_int(op->size);
  if (count && *count < 0)
    user_error("buffer '", op->buffer.name(), "' in function '", func_name_, "' has negative size ", *count);
  uint64_t element_bytes = module_.getDataLayout().getTypeAllocSize(element);
  bool on_stack = count && uint64_t(*count) * element_bytes <= kMaxStackBytes;
  llvm::Value* heap = on_stack ? nullptr : emit_heap_allocate(op, element);
  state_.buffers[op->buffer.get()] = on_stack ? entry_alloca(element, *count, kAllocAlign) : heap;
  emit(op->body);
  state_.buffers.erase(op->buffer.get());
  if (heap) {
    llvm::FunctionCallee free_fn =
        module_.getOrInsertFunction("tessel_workspace_free", builder_.getVoidTy(), builder_.getInt8PtrTy());
    builder_.CreateCall(free_fn, {builder_.CreateBitCast(heap, builder_.getInt8PtrTy())});
  }
}

// From the runtime's per-thread cache (runtime/workspace.h): malloc would page-fault large
// buffers in afresh on every run.
llvm::Value* CodeGen::emit_heap_allocate(const Allocate* op, llvm::Type* element) {
  llvm::Type* i64 = builder_.getInt64Ty();
  uint64_t element_bytes = module_.getDataLayout().getTypeAllocSize(element);
  llvm::Value* count = emit_cast(emit_index(op->size), op->size.type(), DataType::int64());
  llvm::Value* bytes = builder_.CreateMul(count, llvm::ConstantInt::get(i64, element_bytes));
  llvm::FunctionCallee alloc = module_.getOrInsertFunction("tessel_workspace_alloc", builder_.getInt8PtrTy(), i64);
  return builder_.CreateBitCast(builder_.CreateCall(alloc, {bytes}), element->getPointerTo());
}

}  // namespace tessel::llvm_cpu
