// Object-code modules: lazy JIT linking in this process, export through the system linker
// (backends/llvm_cpu/object_module.h). Generated code finds the thread pool entry as an absolute
// symbol (no reliance on libtessel_runtime's symbols being visible to dlsym) and libc/libm through
// the process.
#include "backends/llvm_cpu/object_module.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>
#include <mutex>
#include <thread>

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Support/MemoryBuffer.h>

#include "backends/llvm_cpu/codegen.h"
#include "backends/llvm_cpu/cpu_target.h"
#include "backends/system_tools.h"
#include "runtime/thread_pool.h"
#include "runtime/workspace.h"
#include "support/error.h"
#include "support/output_file.h"

namespace tessel::llvm_cpu {
namespace {

template <typename T>
T take_or_throw(llvm::Expected<T> value, const std::string& what) {
  if (!value) throw InternalError("LLVM JIT: " + what + ": " + llvm::toString(value.takeError()));
  return std::move(*value);
}

void check(llvm::Error error, const std::string& what) {
  if (error) throw InternalError("LLVM JIT: " + what + ": " + llvm::toString(std::move(error)));
}

void expose_runtime(llvm::orc::LLJIT& jit) {
  llvm::orc::JITDylib& lib = jit.getMainJITDylib();
  llvm::orc::SymbolMap runtime;
  runtime[jit.mangleAndIntern("tessel_parallel_for")] =
      llvm::JITEvaluatedSymbol(llvm::pointerToJITTargetAddress(&tessel_parallel_for), llvm::JITSymbolFlags::Exported);
  runtime[jit.mangleAndIntern("tessel_workspace_alloc")] = llvm::JITEvaluatedSymbol(
      llvm::pointerToJITTargetAddress(&tessel_workspace_alloc), llvm::JITSymbolFlags::Exported);
  runtime[jit.mangleAndIntern("tessel_workspace_free")] = llvm::JITEvaluatedSymbol(
      llvm::pointerToJITTargetAddress(&tessel_workspace_free), llvm::JITSymbolFlags::Exported);
  check(lib.define(llvm::orc::absoluteSymbols(std::move(runtime))), "defining runtime symbols");
  lib.addGenerator(take_or_throw(
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(jit.getDataLayout().getGlobalPrefix()),
      "searching the process for libc symbols"));
}

class ObjectModule : public ModuleNode {
 public:
  ObjectModule(ModuleInfo info, std::vector<std::string> objects, LlvmCpuTarget target)
      : ModuleNode(std::move(info)), objects_(std::move(objects)), target_(std::move(target)) {}

  PackedEntry entry(const FunctionInfo& function) const override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!jit_) jit_ = link_in_process();
    auto symbol = take_or_throw(jit_->lookup(function.symbol), "linking '" + function.name + "'");
    return reinterpret_cast<PackedEntry>(symbol.getAddress());
  }

  void export_library(const std::string& path) const override { link_shared_library(objects_, path); }

 private:
  std::unique_ptr<llvm::orc::LLJIT> link_in_process() const {
    auto jit = take_or_throw(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(jit_target_builder(target_)).create(),
                             "creating the JIT");
    expose_runtime(*jit);
    for (size_t i = 0; i < objects_.size(); ++i)
      check(jit->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(objects_[i], "function" + std::to_string(i))),
            "adding the object of '" + info().functions[i].name + "'");
    return jit;
  }

  std::vector<std::string> objects_;  // one per function, in info().functions order
  LlvmCpuTarget target_;
  mutable std::mutex mutex_;
  mutable std::unique_ptr<llvm::orc::LLJIT> jit_;  // owns the code entries point into
};

// Calls emit(i) for i in [0, n) on up to the machine's core count of threads (each function
// compiles in an LLVM context of its own); then rethrows the exception of the lowest i, if any.
template <typename Emit>
void for_each_function_in_parallel(size_t n, Emit emit) {
  std::atomic<size_t> next{0};
  std::vector<std::exception_ptr> errors(n);
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        emit(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> helpers;
  size_t threads = std::min<size_t>(n, std::max(1u, std::thread::hardware_concurrency()));
  for (size_t t = 1; t < threads; ++t) helpers.emplace_back(work);
  work();
  for (std::thread& t : helpers) t.join();
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
}

}  // namespace

Module build_module(const std::vector<BuildInput>& functions, const LlvmCpuOptions& options) {
  ModuleInfo info{options.target.str(), {}};
  for (const BuildInput& input : functions)
    info.functions.push_back(function_info(input.lowered(), packed_entry_name(input.name())));
  std::string info_text = info.to_json();
  std::vector<std::string> objects(functions.size());
  for_each_function_in_parallel(functions.size(), [&](size_t i) {
    objects[i] = emit_object(functions[i].lowered(), options, i == 0 ? info_text : "");
  });
  return Module(std::make_shared<ObjectModule>(std::move(info), std::move(objects), llvm_target_for(options.target)));
}

void link_shared_library(const std::vector<std::string>& objects, const std::string& path) {
  TempDir dir("tessel-link-");
  std::string output = path + ".tmp" + std::to_string(getpid());  // renamed into place when complete
  std::vector<std::string> argv = {"ld", "-shared", "-z", "noexecstack", "-o", output};
  for (size_t i = 0; i < objects.size(); ++i) {
    std::string object = (dir.path() / ("function" + std::to_string(i) + ".o")).string();
    write_file_atomically(object, objects[i]);
    argv.push_back(object);
  }
  auto log = dir.path() / "link.log";
  int status = run_tool(argv, log);
  if (status == -1) user_error("cannot run the linker 'ld' to write '", path, "': install binutils");
  if (status != 0 || std::rename(output.c_str(), path.c_str()) != 0) {
    std::remove(output.c_str());
    user_error("linking the shared library '", path, "' failed (", command_line(argv), " exited with status ", status,
               "); check that the directory exists and is writable\n", read_text_file(log));
  }
}

}  // namespace tessel::llvm_cpu
