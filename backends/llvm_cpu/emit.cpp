// File and text output of the LLVM CPU back end: LLVM IR, assembly and object code, all from the
// same optimized module, and shared libraries linked from the object code.
#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "backends/llvm_cpu/build_module.h"
#include "backends/llvm_cpu/cpu_target.h"
#include "backends/llvm_cpu/llvm_cpu.h"
#include "backends/llvm_cpu/object_module.h"
#include "support/error.h"
#include "support/output_file.h"

namespace tessel {
namespace {

// The exported metadata string of a module (runtime/module.h): a NUL-terminated constant array.
void add_module_info(llvm::Module& module, const std::string& text) {
  llvm::Constant* value = llvm::ConstantDataArray::getString(module.getContext(), text, /*AddNull=*/true);
  new llvm::GlobalVariable(module, value->getType(), /*isConstant=*/true, llvm::GlobalValue::ExternalLinkage, value,
                           kModuleInfoSymbol);
}

// Machine code (assembly text or an object file image) of the function.
std::string emit_machine_code(const LoweredFunc& func, const LlvmCpuOptions& options, llvm::CodeGenFileType kind,
                              const std::string& module_info = "") {
  std::unique_ptr<llvm::TargetMachine> target = llvm_cpu::create_target_machine(llvm_cpu::llvm_target_for(options.target), /*pic=*/true);
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = llvm_cpu::build_optimized_module(func, context, *target, options);
  if (!module_info.empty()) add_module_info(*module, module_info);
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream out(buffer);
  llvm::legacy::PassManager passes;
  if (target->addPassesToEmitFile(passes, out, nullptr, kind))
    throw InternalError("LLVM cannot emit machine code for target " + options.target.key());
  passes.run(*module);
  return std::string(buffer.begin(), buffer.end());
}

}  // namespace

std::string llvm_cpu::emit_object(const LoweredFunc& func, const LlvmCpuOptions& options, const std::string& module_info) {
  return emit_machine_code(func, options, llvm::CGFT_ObjectFile, module_info);
}

std::string emit_llvm_ir(const LoweredFunc& func, const LlvmCpuOptions& options) {
  std::unique_ptr<llvm::TargetMachine> target = llvm_cpu::create_target_machine(llvm_cpu::llvm_target_for(options.target), /*pic=*/true);
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = llvm_cpu::build_optimized_module(func, context, *target, options);
  std::string text;
  llvm::raw_string_ostream out(text);
  module->print(out, nullptr);
  return out.str();
}

std::string emit_assembly(const LoweredFunc& func, const LlvmCpuOptions& options) {
  return emit_machine_code(func, options, llvm::CGFT_AssemblyFile);
}

void write_object_file(const LoweredFunc& func, const std::string& path, const LlvmCpuOptions& options) {
  write_file_atomically(path, llvm_cpu::emit_object(func, options));
}

void write_shared_library(const LoweredFunc& func, const std::string& path, const LlvmCpuOptions& options) {
  llvm_cpu::build_module({func}, options).export_library(path);
}

}  // namespace tessel
