// SPDX-License-Identifier: MIT
#pragma once
// The C API of bk: devices, buffer types, buffers, a graph builder and the scheduler's decision
// record, for C programs and for bindings (Python's ctypes, Rust, Go, ...). Pure C11; it compiles
// as C and as C++. docs/c-api.md has a complete example.
//
// Handles. Every type below is opaque: the library hands out pointers, the caller never looks
// inside.
//   bk_device, bk_buffer_type  borrowed from the process-wide registry (libbk's Registry::global(),
//                              built on first use: the CPU, then every plugin found). They live
//                              until the process exits; never free them.
//   bk_buffer                  owned by the caller: bk_buffer_alloc() creates, bk_buffer_free()
//                              destroys. Free every buffer before the process exits.
//   bk_graph                   owned by the caller: bk_graph_new() / bk_graph_free().
//   bk_tensor                  owned by its graph; valid until bk_graph_free() of that graph.
// Strings. A `const char*` returned by a getter belongs to the handle it came from and stays valid
// as long as that handle (for devices and buffer types: until exit). A `char*` the library
// returns through an out-parameter (the JSON functions) is the caller's: free it with
// bk_free_string(), not free().
//
// Errors. Functions that can fail return a bk_status; BK_OK is 0. No C++ exception ever crosses
// this interface. On failure, bk_last_error() returns a message that names the function, the
// device, the sizes and what to do next, and every out-parameter that is not NULL is set to NULL
// (or 0). Every function that returns a bk_status first sets the message to "", so after BK_OK
// it is "". Getters that return a value instead of a status (bk_device_name, bk_buffer_size, ...)
// return NULL or 0 for a NULL handle and set the message; otherwise they leave it alone. A NULL
// pointer where a handle, a string or a buffer is required is BK_ERROR_INVALID_ARGUMENT, with a
// message naming the argument.
//
// Threading. The last error is per thread. Device and buffer type handles and their getters may
// be used from any thread. A buffer or a graph is used by one thread at a time.

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bk/api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Status and errors ------------------------------------------------------------------ */

// One value per bk::ErrorCode (same numbers), and BK_ERROR_INTERNAL for anything else (a
// standard-library exception, a bug).
typedef enum bk_status {
  BK_OK = 0,
  BK_ERROR_CHECK_FAILED = 1,      // a verification found wrong data or a requirement was not met
  BK_ERROR_INVALID_ARGUMENT = 2,  // bad input: NULL, sizes, ranges, shapes, names
  BK_ERROR_NOT_FOUND = 3,         // no such device (or index)
  BK_ERROR_OUT_OF_MEMORY = 4,     // an allocation failed
  BK_ERROR_DEVICE_ERROR = 5,      // a device or driver call failed
  BK_ERROR_TIMEOUT = 6,           // a device did not answer in time
  BK_ERROR_UNSUPPORTED = 7,       // the device cannot do what was asked
  BK_ERROR_INTERNAL = 100,        // anything else
  // Not a status: keeps every bk_* enum 32 bits wide, so that any int a binding passes is a
  // value of the type (C++ leaves other values undefined) and the function can refuse it.
  BK_STATUS_MAX_ENUM = 0x7fffffff,
} bk_status;

// "ok", "check_failed", "invalid_argument", "not_found", "out_of_memory", "device_error",
// "timeout", "unsupported", "internal"; "unknown" for a value outside the enum.
BK_API const char* bk_status_name(bk_status status);
// The calling thread's last error message; "" when the last status-returning call succeeded.
// Valid until the thread's next call into this API.
BK_API const char* bk_last_error(void);
// Frees a string this API returned through a `char**`; NULL is ignored.
BK_API void bk_free_string(char* string);

/* ---- Version ---------------------------------------------------------------------------- */

// The version of the libbk loaded at run time, "MAJOR.MINOR.PATCH"; a static string.
BK_API const char* bk_version_string(void);
// The same as numbers; any pointer may be NULL.
BK_API void bk_version(int* major, int* minor, int* patch);

/* ---- Devices ---------------------------------------------------------------------------- */

typedef struct bk_device bk_device;
typedef struct bk_buffer_type bk_buffer_type;
typedef struct bk_buffer bk_buffer;

typedef enum bk_device_type {
  BK_DEVICE_TYPE_CPU = 0,
  BK_DEVICE_TYPE_GPU = 1,                // a discrete GPU
  BK_DEVICE_TYPE_IGPU = 2,               // an integrated GPU
  BK_DEVICE_TYPE_ACCEL = 3,              // anything else
  BK_DEVICE_TYPE_MAX_ENUM = 0x7fffffff,  // not a type (see BK_STATUS_MAX_ENUM)
} bk_device_type;

// What a device can do besides computing.
typedef struct bk_device_caps {
  bool async;                 // transfers can overlap compute on a stream
  bool host_buffer;           // offers a host (pinned) buffer type: bk_device_host_buffer_type()
  bool buffer_from_host_ptr;  // can wrap caller memory as a buffer (not in this API yet)
  bool events;                // supports events
  bool event_timing;          // events that measure device time
} bk_device_caps;

// Devices of the process-wide registry, in its order (the CPU first). The first call builds the
// registry, loading the plugins; 0 only if that failed (bk_last_error says why).
BK_API size_t bk_device_count(void);
// The device at `index` < bk_device_count(); BK_ERROR_NOT_FOUND otherwise.
BK_API bk_status bk_device_get(size_t index, bk_device** out);
// The device with this name ("CPU", "Vulkan0", "CUDA0"), case-insensitively.
// BK_ERROR_NOT_FOUND names it and lists the devices there are (and plugins that failed to load).
BK_API bk_status bk_device_find(const char* name, bk_device** out);

// Unique and stable within a machine: "CPU", "Vulkan0".
BK_API const char* bk_device_name(const bk_device* device);
// The CPU's brand string or the GPU's model.
BK_API const char* bk_device_description(const bk_device* device);
// A stable identity where the device has one (PCI bus id "0000:65:00.0", or a UUID); "" otherwise.
BK_API const char* bk_device_stable_id(const bk_device* device);
// BK_DEVICE_TYPE_ACCEL for a NULL device (and the message set).
BK_API bk_device_type bk_device_get_type(const bk_device* device);
// "cpu", "gpu", "igpu", "accel"; "unknown" outside the enum.
BK_API const char* bk_device_type_name(bk_device_type type);
// Bytes free and in total, as the device reports them now; either pointer may be NULL.
BK_API bk_status bk_device_memory(const bk_device* device, size_t* free_bytes, size_t* total_bytes);
BK_API bk_status bk_device_caps_get(const bk_device* device, bk_device_caps* out);
// The device as one JSON object: "name", "description", "type", "stable_id" (a string or null),
// "simulated", "memory" {"free", "total"}, "caps" {...as bk_device_caps}, and "properties", what
// the device says about itself (driver, topology, limits: kind-specific keys). Free *json with
// bk_free_string().
BK_API bk_status bk_device_describe_json(const bk_device* device, char** json);

/* ---- Buffer types ----------------------------------------------------------------------- */

// The device's own memory.
BK_API bk_status bk_device_buffer_type(bk_device* device, bk_buffer_type** out);
// Host memory the device reads fast (pinned); BK_ERROR_UNSUPPORTED when it has none
// (bk_device_caps.host_buffer is false).
BK_API bk_status bk_device_host_buffer_type(bk_device* device, bk_buffer_type** out);

BK_API const char* bk_buffer_type_name(const bk_buffer_type* type);
// The device the type belongs to (NULL for a NULL type).
BK_API bk_device* bk_buffer_type_device(const bk_buffer_type* type);
// Alignment of every buffer's start, in bytes.
BK_API size_t bk_buffer_type_alignment(const bk_buffer_type* type);
// The largest buffer it can allocate (SIZE_MAX when it has no limit of its own).
BK_API size_t bk_buffer_type_max_size(const bk_buffer_type* type);
// True when the CPU can address its buffers directly (host memory).
BK_API bool bk_buffer_type_is_host(const bk_buffer_type* type);

/* ---- Buffers ---------------------------------------------------------------------------- */

// Allocates `size` bytes (0 is allowed: an empty buffer). BK_ERROR_INVALID_ARGUMENT above the
// type's max size, BK_ERROR_OUT_OF_MEMORY when the device cannot hold it; both messages name the
// device and the sizes. The contents are undefined until written or filled. Free with
// bk_buffer_free() before the process exits.
BK_API bk_status bk_buffer_alloc(bk_buffer_type* type, size_t size, bk_buffer** out);
// Frees the buffer; NULL is ignored.
BK_API void bk_buffer_free(bk_buffer* buffer);
BK_API size_t bk_buffer_size(const bk_buffer* buffer);
BK_API bk_buffer_type* bk_buffer_get_type(const bk_buffer* buffer);
// Byte access, bounds-checked: the range [offset, offset + size) must lie inside the buffer, or
// the call is BK_ERROR_INVALID_ARGUMENT naming the offset, the sizes, the buffer and its device,
// and changes nothing (an offset + size that overflows is outside too). These work on every
// device, through its transfer path (device memory is not host-addressable); they return when
// the bytes have arrived.
BK_API bk_status bk_buffer_write(bk_buffer* buffer, size_t offset, const void* src, size_t size);
BK_API bk_status bk_buffer_read(const bk_buffer* buffer, size_t offset, void* dst, size_t size);
// Sets `size` bytes from `offset` to `value` (offset 0 and bk_buffer_size() for all of it).
BK_API bk_status bk_buffer_fill(bk_buffer* buffer, size_t offset, uint8_t value, size_t size);

/* ---- Graphs ----------------------------------------------------------------------------- */

// A graph to schedule: leafs (inputs, weights) and op nodes, as in bk's C++ GraphBuilder and
// ops.h (whose shape rules and messages apply), built for scheduling when it is first
// scheduled. After that it can be scheduled again but no longer extended.
typedef struct bk_graph bk_graph;
typedef struct bk_tensor bk_tensor;

typedef enum bk_dtype {
  BK_DTYPE_F32 = 0,
  BK_DTYPE_F16 = 1,
  BK_DTYPE_BF16 = 2,
  BK_DTYPE_I32 = 3,
  BK_DTYPE_MAX_ENUM = 0x7fffffff,  // not a type (see BK_STATUS_MAX_ENUM)
} bk_dtype;

BK_API bk_status bk_graph_new(bk_graph** out);
// Frees the graph and its tensors; NULL is ignored.
BK_API void bk_graph_free(bk_graph* graph);
// A leaf the caller sets before compute, and a leaf holding model parameters. ne0 is the
// innermost (contiguous) size; unused dimensions are 1. No size may be negative.
BK_API bk_status bk_graph_input(bk_graph* graph, const char* name, bk_dtype type, int64_t ne0, int64_t ne1,
                                int64_t ne2, int64_t ne3, bk_tensor** out);
BK_API bk_status bk_graph_weight(bk_graph* graph, const char* name, bk_dtype type, int64_t ne0, int64_t ne1,
                                 int64_t ne2, int64_t ne3, bk_tensor** out);
// A node computing `op` from a (and b), named `name` (NULL: "<op>-<n>"). Ops:
//   two sources: "add", "mul" (b broadcasts over a), "mul_mat" (a = weights w, b = activations x),
//                "get_rows" (a = table, b = I32 indices), "cpy" (a into b's memory)
//   one source (b must be NULL): "silu", "gelu", "cont", "transpose"
// Sources must come from the same graph. BK_ERROR_INVALID_ARGUMENT for an unknown op, a
// missing or extra source, or shapes the op refuses (the message says which rule).
BK_API bk_status bk_graph_op(bk_graph* graph, const char* op, const char* name, bk_tensor* a, bk_tensor* b,
                             bk_tensor** out);
// The ops with a number: "scale" (a * value; b NULL), "rms_norm" (value = eps; b NULL),
// "soft_max" (value = scale; b = the mask, or NULL).
BK_API bk_status bk_graph_op_f(bk_graph* graph, const char* op, const char* name, bk_tensor* a, bk_tensor* b,
                               float value, bk_tensor** out);
// Marks a tensor as a result; scheduling computes what the outputs need.
BK_API bk_status bk_graph_output(bk_graph* graph, bk_tensor* tensor);
// The tensor's name (valid while its graph lives).
BK_API const char* bk_tensor_name(const bk_tensor* tensor);

/* ---- Scheduler report ------------------------------------------------------------------- */

// Options of bk_sched_report_json; a zero-initialised struct (or NULL) means the defaults.
typedef struct bk_sched_options {
  const char* weights_on;  // the device whose memory holds every weight; NULL: the CPU
  bool no_offload;         // never move a host-weight op to a device that asks for it
  int copies;              // pipeline copies of every split input; 0 means 1
} bk_sched_options;

// Schedules the graph with bk's scheduler over the named devices, in priority order (the CPU
// last; it is appended when missing; n_devices 0: every device, the CPU last), with every weight
// assumed to live on options->weights_on, plans the memory without allocating it, and returns
// the decision record as one JSON object: "backends" (the device names, in order), "planned",
// "nodes" (for each: backend, cause, reason, the backends passed over and why), "leafs",
// "splits", "totals" and "idle_backends", with the same fields as `bkctl sched --json` (schema
// bk.sched/v2; docs/sched.md explains them). Computes nothing. The graph needs at least one
// output. BK_ERROR_NOT_FOUND for an unknown device; BK_ERROR_INVALID_ARGUMENT for a device named
// twice, the CPU not last, weights on a device not in the list. Free *json with bk_free_string().
BK_API bk_status bk_sched_report_json(bk_graph* graph, const char* const* device_names, size_t n_devices,
                                      const bk_sched_options* options, char** json);

#ifdef __cplusplus
}  // extern "C"
#endif
