// The C API of compiled models (runtime/c_api.h) over the graph executor: every entry point turns
// an exception into -1 or NULL and keeps its message for tessel_last_error.
#include "runtime/c_api.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <string>

#include "runtime/dlpack.h"
#include "runtime/graph_executor.h"
#include "support/error.h"

struct TesselModel {
  tessel::GraphExecutor executor;
};

namespace {

thread_local std::string last_error;

// Runs `f`, returning `failed` with the message kept when it throws.
template <typename F, typename R>
R guarded(F f, R failed) {
  try {
    return f();
  } catch (const std::exception& e) {
    last_error = e.what();
  } catch (...) {
    last_error = "unknown error";
  }
  return failed;
}

void require_model(const TesselModel* model) {
  if (!model) tessel::user_error("the model is NULL");
}

int copy_shape(const std::vector<int64_t>& s, int64_t* shape) {
  if (shape) std::copy(s.begin(), s.end(), shape);
  return static_cast<int>(s.size());
}

}  // namespace

extern "C" {

TesselModel* tessel_model_load(const char* folder) {
  return guarded(
      [&]() -> TesselModel* {
        if (!folder) tessel::user_error("the folder is NULL");
        return new TesselModel{tessel::GraphExecutor::load(folder)};
      },
      static_cast<TesselModel*>(nullptr));
}

void tessel_model_free(TesselModel* model) { delete model; }

int tessel_model_num_inputs(const TesselModel* model) { return model ? static_cast<int>(model->executor.num_inputs()) : -1; }

int tessel_model_num_outputs(const TesselModel* model) {
  return model ? static_cast<int>(model->executor.num_outputs()) : -1;
}

const char* tessel_model_input_name(const TesselModel* model, int index) {
  if (!model || index < 0 || static_cast<size_t>(index) >= model->executor.num_inputs()) return nullptr;
  return model->executor.input_name(index).c_str();
}

int tessel_model_input_shape(const TesselModel* model, int index, int64_t* shape) {
  if (!model || index < 0 || static_cast<size_t>(index) >= model->executor.num_inputs()) return -1;
  return copy_shape(model->executor.input_shape(index), shape);
}

int tessel_model_output_shape(const TesselModel* model, int index, int64_t* shape) {
  if (!model || index < 0 || static_cast<size_t>(index) >= model->executor.num_outputs()) return -1;
  return copy_shape(model->executor.output_shape(index), shape);
}

int tessel_model_set_input(TesselModel* model, const char* name, const DLTensor* value) {
  return guarded(
      [&] {
        require_model(model);
        if (!name || !value) tessel::user_error("tessel_model_set_input: the name or the tensor is NULL");
        model->executor.set_input(name, tessel::view_dltensor(*value));
        return 0;
      },
      -1);
}

int tessel_model_run(TesselModel* model) {
  return guarded(
      [&] {
        require_model(model);
        model->executor.run();
        return 0;
      },
      -1);
}

int tessel_model_get_output(TesselModel* model, int index, DLTensor* out) {
  return guarded(
      [&] {
        require_model(model);
        if (!out) tessel::user_error("tessel_model_get_output: the tensor is NULL");
        if (index < 0) tessel::user_error("there is no output ", index);
        tessel::NDArray value = model->executor.output(static_cast<size_t>(index));
        tessel::NDArray dst = tessel::view_dltensor(*out);
        dst.check_matches(value.shape(), value.dtype(), "output " + std::to_string(index));
        std::memcpy(dst.data(), value.data(), value.nbytes());
        return 0;
      },
      -1);
}

const char* tessel_last_error(void) { return last_error.c_str(); }

}  // extern "C"
