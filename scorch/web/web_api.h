#pragma once
// The C functions a web page calls (through web/scorch-web) to load and run the models of web_model.h. Every
// function catches: a failure returns 0 or null and leaves its message (the failing operation in brackets, then
// shapes, keys or the handle) in scorch_web_error(). Handles are positive; a freed or unknown handle is an error,
// never a crash. Not thread-safe: one module instance serves one thread (ScorchPool runs one per worker).
#include <cstddef>
#include <cstdint>

extern "C" {

/// Loads the registered model name from config (JSON text) and a record's bytes (Scorch's Bin format, or its JSON
/// format when the bytes start with '{'); a handle > 0, or 0 on failure.
int32_t scorch_web_load(const char* name, const char* config, const uint8_t* record, size_t record_size);

/// Runs handle on rank dims and their values (float32, row-major); the output's values, which stay valid until
/// the handle's next run or free, or null on failure.
const float* scorch_web_run(int32_t handle, const float* input, const uint32_t* dims, uint32_t rank);

/// The rank of handle's last output (0 before a run, for an unknown handle, or for a scalar output).
uint32_t scorch_web_output_rank(int32_t handle);

/// The dims of handle's last output (null before a run, for an unknown handle, or for a scalar output).
const uint32_t* scorch_web_output_dims(int32_t handle);

/// Releases handle; false when it is not a loaded model.
bool scorch_web_free(int32_t handle);

/// The last failure's message ("" when none has happened); valid until the next failing call.
const char* scorch_web_error();

/// The registered models' names, comma-separated and sorted; valid until the next call.
const char* scorch_web_models();
}
