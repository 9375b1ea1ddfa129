/* A C program using the C API of compiled models (runtime/c_api.h), linked with
 * libtessel_runtime.so alone; tests/graph/c_api_test.cpp runs it on an exported module.
 * Usage: run_model FOLDER OUT.bin. Fills the model's single float32 input with sin(0.01 * i),
 * runs the model, writes output 0's floats to OUT.bin, and checks that bad calls fail with a message. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime/c_api.h"

static DLTensor float_tensor(float* data, int ndim, int64_t* shape) {
  DLTensor t = {0};
  t.data = data;
  t.device.device_type = kDLCPU;
  t.ndim = ndim;
  t.dtype.code = kDLFloat;
  t.dtype.bits = 32;
  t.dtype.lanes = 1;
  t.shape = shape;
  return t;
}

static int64_t numel(int ndim, const int64_t* shape) {
  int64_t n = 1;
  for (int i = 0; i < ndim; ++i) n *= shape[i];
  return n;
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  if (tessel_model_load("/nonexistent/module") != NULL || tessel_last_error()[0] == '\0') {
    fprintf(stderr, "loading a missing folder did not fail with a message\n");
    return 1;
  }
  TesselModel* m = tessel_model_load(argv[1]);
  if (!m) {
    fprintf(stderr, "load: %s\n", tessel_last_error());
    return 1;
  }
  int64_t in_shape[8], out_shape[8];
  int in_ndim = tessel_model_input_shape(m, 0, in_shape), out_ndim = tessel_model_output_shape(m, 0, out_shape);
  if (tessel_model_num_inputs(m) != 1 || in_ndim < 0 || out_ndim < 0 || in_ndim > 8 || out_ndim > 8) return 1;
  int64_t n_in = numel(in_ndim, in_shape), n_out = numel(out_ndim, out_shape);
  float* x = malloc(sizeof(float) * n_in);
  float* y = malloc(sizeof(float) * n_out);
  for (int64_t i = 0; i < n_in; ++i) x[i] = sinf(0.01f * (float)i);
  DLTensor xt = float_tensor(x, in_ndim, in_shape), yt = float_tensor(y, out_ndim, out_shape);
  if (tessel_model_set_input(m, "no such input", &xt) != -1) return 1;
  DLTensor wrong = float_tensor(x, 1, &n_in);
  if (tessel_model_set_input(m, tessel_model_input_name(m, 0), &wrong) != -1) return 1;
  if (tessel_model_set_input(m, tessel_model_input_name(m, 0), &xt) != 0 || tessel_model_run(m) != 0 ||
      tessel_model_get_output(m, 0, &yt) != 0) {
    fprintf(stderr, "run: %s\n", tessel_last_error());
    return 1;
  }
  FILE* out = fopen(argv[2], "wb");
  if (!out || fwrite(y, sizeof(float), (size_t)n_out, out) != (size_t)n_out) return 1;
  fclose(out);
  free(x);
  free(y);
  tessel_model_free(m);
  printf("ok\n");
  return 0;
}
