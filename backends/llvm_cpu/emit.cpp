// File and text output of the LLVM CPU back end: LLVM IR, assembly, object files and shared
// libraries, all from the same optimized module the JIT would run.
#include <cstdlib>
#include <filesystem>

#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "backends/llvm_cpu/build_module.h"
#include "backends/llvm_cpu/cpu_target.h"
#include "backends/llvm_cpu/llvm_cpu.h"
#include "support/error.h"
#include "support/output_file.h"

namespace tessel {
namespace {

// Machine code (assembly text or an object file image) of the function.
std::string emit_machine_code(const LoweredFunc& func, const LlvmCpuOptions& options, llvm::CodeGenFileType kind) {
  std::unique_ptr<llvm::TargetMachine> target = llvm_cpu::create_target_machine(llvm_cpu::llvm_target_for(options.target), /*pic=*/true);
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = llvm_cpu::build_optimized_module(func, context, *target, options);
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream out(buffer);
  llvm::legacy::PassManager passes;
  if (target->addPassesToEmitFile(passes, out, nullptr, kind))
    throw InternalError("LLVM cannot emit machine code for target " + options.target.key());
  passes.run(*module);
  return std::string(buffer.begin(), buffer.end());
}

std::string shell_quote(const std::string& s) {
  std::string quoted = "'";
  for (char c : s) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

}  // namespace

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
  write_file_atomically(path, emit_machine_code(func, options, llvm::CGFT_ObjectFile));
}

void write_shared_library(const LoweredFunc& func, const std::string& path, const LlvmCpuOptions& options) {
  std::filesystem::path object = path + ".tmp.o";
  write_object_file(func, object.string(), options);
  std::string command = "cc -shared -o " + shell_quote(path) + " " + shell_quote(object.string());
  int status = std::system(command.c_str());
  std::error_code ignored;
  std::filesystem::remove(object, ignored);
  if (status != 0)
    user_error("linking shared library '", path, "' failed (", command, " exited with status ", status,
               "); check that a C compiler `cc` is installed and the path is writable");
}

}  // namespace tessel
