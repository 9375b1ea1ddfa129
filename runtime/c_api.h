/* The C API of compiled models: load a module folder written by `tessel compile`, set inputs and
 * read outputs as DLPack DLTensors, run. A C program links libtessel_runtime.so alone (no LLVM,
 * no compiler). Functions returning int give 0 on success and -1 on failure, pointers NULL on
 * failure; tessel_last_error() then says what went wrong (per thread, until the next failure).
 *
 *   TesselModel* m = tessel_model_load("out/");
 *   if (!m) { fprintf(stderr, "%s\n", tessel_last_error()); return 1; }
 *   DLTensor x = {...};                              // float32 [1, 3, 224, 224], on the CPU
 *   tessel_model_set_input(m, "input", &x);
 *   tessel_model_run(m);
 *   DLTensor y = {...};                              // shaped as tessel_model_output_shape says
 *   tessel_model_get_output(m, 0, &y);
 *   tessel_model_free(m);
 */
#ifndef TESSEL_RUNTIME_C_API_H_
#define TESSEL_RUNTIME_C_API_H_

#include <dlpack/dlpack.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TesselModel TesselModel;

/* Loads a module folder (kernels.so, graph.json, params.bin). */
TesselModel* tessel_model_load(const char* folder);
void tessel_model_free(TesselModel* model);

int tessel_model_num_inputs(const TesselModel* model);
int tessel_model_num_outputs(const TesselModel* model);
/* The name of input `index`, owned by the model; NULL for an index out of range. */
const char* tessel_model_input_name(const TesselModel* model, int index);
/* The number of dimensions of input or output `index` (-1 if out of range); its extents go to
 * `shape` when it is not NULL (room for that many). */
int tessel_model_input_shape(const TesselModel* model, int index, int64_t* shape);
int tessel_model_output_shape(const TesselModel* model, int index, int64_t* shape);

/* Copies `value` (a dense row-major CPU tensor of the input's shape and type) into input `name`. */
int tessel_model_set_input(TesselModel* model, const char* name, const DLTensor* value);
int tessel_model_run(TesselModel* model);
/* Copies output `index` into `out` (a dense row-major CPU tensor of the output's shape and type). */
int tessel_model_get_output(TesselModel* model, int index, DLTensor* out);

const char* tessel_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* TESSEL_RUNTIME_C_API_H_ */
