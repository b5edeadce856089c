// SPDX-License-Identifier: MIT
// The C API (bk/bk.h) from C11, compiled with -std=c11 -Wall -Wextra -Werror -pedantic: every
// function, on every device present (BK_SIM_DEVICES and BK_NULL_DEVICES add some), with its
// error paths. Prints what it did; every failed check says what was expected and what came back,
// and the program exits 1 when any failed.

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk/bk.h"

static int failures = 0;

#define CHECK(cond, ...)                                              \
  do {                                                                \
    if (!(cond)) {                                                    \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                   \
      fprintf(stderr, "\n");                                          \
      ++failures;                                                     \
    }                                                                 \
  } while (0)

// The call returns BK_OK and leaves the last error empty.
#define EXPECT_OK(call)                                                                         \
  do {                                                                                          \
    bk_status s_ = (call);                                                                      \
    CHECK(s_ == BK_OK, "%s -> %s: %s", #call, bk_status_name(s_), bk_last_error());             \
    CHECK(s_ != BK_OK || bk_last_error()[0] == '\0', "%s: last error after success: %s", #call, \
          bk_last_error());                                                                     \
  } while (0)

// The call fails with `expected` and a message that contains `text`.
#define EXPECT_FAIL(call, expected, text)                                                                 \
  do {                                                                                                    \
    bk_status s_ = (call);                                                                                \
    CHECK(s_ == (expected), "%s -> %s, expected %s (%s)", #call, bk_status_name(s_),                      \
          bk_status_name(expected), bk_last_error());                                                     \
    CHECK(strstr(bk_last_error(), (text)) != NULL, "%s: message '%s' lacks '%s'", #call, bk_last_error(), \
          (text));                                                                                        \
  } while (0)

static int contains(const char* haystack, const char* needle) {
  return haystack != NULL && strstr(haystack, needle) != NULL;
}

static void version_and_status(void) {
  int major = -1, minor = -1, patch = -1;
  char expected[64];
  bk_version(&major, &minor, &patch);
  bk_version(NULL, NULL, NULL);
  snprintf(expected, sizeof expected, "%d.%d.%d", major, minor, patch);
  CHECK(major >= 0 && minor >= 0 && patch >= 0, "version %d.%d.%d", major, minor, patch);
  CHECK(strcmp(bk_version_string(), expected) == 0, "'%s' vs '%s'", bk_version_string(), expected);
  printf("bk %s\n", bk_version_string());

  CHECK(strcmp(bk_status_name(BK_OK), "ok") == 0, "%s", bk_status_name(BK_OK));
  CHECK(strcmp(bk_status_name(BK_ERROR_CHECK_FAILED), "check_failed") == 0, "check_failed");
  CHECK(strcmp(bk_status_name(BK_ERROR_INVALID_ARGUMENT), "invalid_argument") == 0, "invalid_argument");
  CHECK(strcmp(bk_status_name(BK_ERROR_NOT_FOUND), "not_found") == 0, "not_found");
  CHECK(strcmp(bk_status_name(BK_ERROR_OUT_OF_MEMORY), "out_of_memory") == 0, "out_of_memory");
  CHECK(strcmp(bk_status_name(BK_ERROR_DEVICE_ERROR), "device_error") == 0, "device_error");
  CHECK(strcmp(bk_status_name(BK_ERROR_TIMEOUT), "timeout") == 0, "timeout");
  CHECK(strcmp(bk_status_name(BK_ERROR_UNSUPPORTED), "unsupported") == 0, "unsupported");
  CHECK(strcmp(bk_status_name(BK_ERROR_INTERNAL), "internal") == 0, "internal");
  CHECK(strcmp(bk_status_name((bk_status)42), "unknown") == 0, "%s", bk_status_name((bk_status)42));
  bk_free_string(NULL);
}

static void registry_errors(size_t count) {
  bk_device* device = (bk_device*)&failures;  // not NULL: failures must reset it
  EXPECT_FAIL(bk_device_get(count, &device), BK_ERROR_NOT_FOUND, "index");
  CHECK(device == NULL, "out-parameter not reset on failure");
  EXPECT_FAIL(bk_device_get(0, NULL), BK_ERROR_INVALID_ARGUMENT, "out is NULL");
  device = (bk_device*)&failures;
  EXPECT_FAIL(bk_device_find("NoSuchDevice7", &device), BK_ERROR_NOT_FOUND, "'NoSuchDevice7'");
  CHECK(contains(bk_last_error(), "CPU"), "the message lists the devices: %s", bk_last_error());
  CHECK(contains(bk_last_error(), "bk_device_find: "), "the message names the function: %s", bk_last_error());
  CHECK(device == NULL, "out-parameter not reset on failure");
  EXPECT_FAIL(bk_device_find(NULL, &device), BK_ERROR_INVALID_ARGUMENT, "name is NULL");
  EXPECT_FAIL(bk_device_find("CPU", NULL), BK_ERROR_INVALID_ARGUMENT, "out is NULL");

  // Getters on a NULL handle return NULL or 0 and say why.
  CHECK(bk_device_name(NULL) == NULL && contains(bk_last_error(), "device is NULL"), "%s", bk_last_error());
  CHECK(bk_device_description(NULL) == NULL, "description of NULL");
  CHECK(bk_device_stable_id(NULL) == NULL, "stable id of NULL");
  CHECK(bk_device_get_type(NULL) == BK_DEVICE_TYPE_ACCEL, "type of NULL");
  CHECK(strcmp(bk_device_type_name((bk_device_type)9), "unknown") == 0, "type name 9");
  size_t free_bytes = 1, total_bytes = 1;
  EXPECT_FAIL(bk_device_memory(NULL, &free_bytes, &total_bytes), BK_ERROR_INVALID_ARGUMENT, "device is NULL");
  CHECK(free_bytes == 0 && total_bytes == 0, "memory out-parameters not reset");
  bk_device_caps caps;
  EXPECT_FAIL(bk_device_caps_get(NULL, &caps), BK_ERROR_INVALID_ARGUMENT, "device is NULL");
  char not_null[] = "x";
  char* json = not_null;
  EXPECT_FAIL(bk_device_describe_json(NULL, &json), BK_ERROR_INVALID_ARGUMENT, "device is NULL");
  CHECK(json == NULL, "json not reset on failure");
  bk_buffer_type* type = NULL;
  EXPECT_FAIL(bk_device_buffer_type(NULL, &type), BK_ERROR_INVALID_ARGUMENT, "device is NULL");
  EXPECT_FAIL(bk_device_host_buffer_type(NULL, &type), BK_ERROR_INVALID_ARGUMENT, "device is NULL");
  CHECK(bk_buffer_type_name(NULL) == NULL && contains(bk_last_error(), "type is NULL"), "%s",
        bk_last_error());
  CHECK(bk_buffer_type_device(NULL) == NULL, "device of NULL type");
  CHECK(bk_buffer_type_alignment(NULL) == 0, "alignment of NULL type");
  CHECK(bk_buffer_type_max_size(NULL) == 0, "max size of NULL type");
  CHECK(!bk_buffer_type_is_host(NULL), "is_host of NULL type");
}

static void describe(bk_device* device) {
  char* json = NULL;
  char key[256];
  EXPECT_OK(bk_device_describe_json(device, &json));
  if (json == NULL) return;
  snprintf(key, sizeof key, "\"name\":\"%s\"", bk_device_name(device));
  CHECK(json[0] == '{', "describe JSON starts with '{': %.40s", json);
  CHECK(contains(json, key), "describe JSON has %s: %.200s", key, json);
  CHECK(contains(json, "\"memory\":{\"free\":"), "describe JSON has memory: %.200s", json);
  CHECK(contains(json, "\"caps\":{\"async\":"), "describe JSON has caps: %.200s", json);
  CHECK(contains(json, "\"properties\":{"), "describe JSON has properties: %.200s", json);
  bk_free_string(json);
  EXPECT_FAIL(bk_device_describe_json(device, NULL), BK_ERROR_INVALID_ARGUMENT, "json is NULL");
}

// Writes a pattern, reads it back whole and in part, fills a range, and checks every byte.
static void round_trip(bk_buffer_type* type) {
  const size_t size = 4096 + 13;
  unsigned char* pattern = malloc(size);
  unsigned char* back = malloc(size);
  bk_buffer* buffer = NULL;
  EXPECT_OK(bk_buffer_alloc(type, size, &buffer));
  if (buffer == NULL || pattern == NULL || back == NULL) {
    free(pattern);
    free(back);
    return;
  }
  CHECK(bk_buffer_size(buffer) == size, "size %zu", bk_buffer_size(buffer));
  CHECK(bk_buffer_get_type(buffer) == type, "the buffer's type");
  for (size_t i = 0; i < size; ++i) pattern[i] = (unsigned char)(i * 7 + 3);
  EXPECT_OK(bk_buffer_write(buffer, 0, pattern, size));
  memset(back, 0, size);
  EXPECT_OK(bk_buffer_read(buffer, 0, back, size));
  CHECK(memcmp(pattern, back, size) == 0, "read back what was written");
  memset(back, 0, size);
  EXPECT_OK(bk_buffer_read(buffer, 100, back, 50));
  CHECK(memcmp(pattern + 100, back, 50) == 0, "a part read from offset 100");

  EXPECT_OK(bk_buffer_fill(buffer, 10, 0xab, 20));
  EXPECT_OK(bk_buffer_read(buffer, 0, back, size));
  int fill_ok = 1;
  for (size_t i = 0; i < size; ++i) {
    const unsigned char want = (i >= 10 && i < 30) ? 0xab : pattern[i];
    if (back[i] != want) fill_ok = 0;
  }
  CHECK(fill_ok, "fill changed exactly bytes [10, 30)");
  EXPECT_OK(bk_buffer_fill(buffer, 0, 0x5c, bk_buffer_size(buffer)));
  EXPECT_OK(bk_buffer_read(buffer, 0, back, size));
  CHECK(back[0] == 0x5c && back[size - 1] == 0x5c && memchr(back, 0x5d, size) == NULL, "fill of all");

  // Out of range: refused, naming the sizes and the device, and nothing changes.
  char size_text[64];
  snprintf(size_text, sizeof size_text, "%zu bytes", size);
  const char* device = bk_device_name(bk_buffer_type_device(type));
  EXPECT_FAIL(bk_buffer_write(buffer, size - 10, pattern, 20), BK_ERROR_INVALID_ARGUMENT, size_text);
  CHECK(contains(bk_last_error(), device), "the message names %s: %s", device, bk_last_error());
  EXPECT_FAIL(bk_buffer_read(buffer, size - 10, back, 20), BK_ERROR_INVALID_ARGUMENT, "bk_buffer_read: ");
  EXPECT_FAIL(bk_buffer_read(buffer, SIZE_MAX, back, 2), BK_ERROR_INVALID_ARGUMENT, "past the end");
  EXPECT_FAIL(bk_buffer_write(buffer, 1, pattern, SIZE_MAX), BK_ERROR_INVALID_ARGUMENT, "past the end");
  EXPECT_FAIL(bk_buffer_fill(buffer, size, 1, 1), BK_ERROR_INVALID_ARGUMENT, size_text);
  EXPECT_FAIL(bk_buffer_write(buffer, 0, NULL, 1), BK_ERROR_INVALID_ARGUMENT, "src is NULL");
  EXPECT_FAIL(bk_buffer_read(buffer, 0, NULL, 1), BK_ERROR_INVALID_ARGUMENT, "dst is NULL");
  EXPECT_OK(bk_buffer_read(buffer, 0, back, size));
  CHECK(back[size - 1] == 0x5c && back[0] == 0x5c, "failed calls changed nothing");
  bk_buffer_free(buffer);
  free(pattern);
  free(back);
}

static void allocation_errors(bk_buffer_type* type) {
  const char* device = bk_device_name(bk_buffer_type_device(type));
  bk_buffer* buffer = (bk_buffer*)&failures;
  bk_status s = bk_buffer_alloc(type, SIZE_MAX / 2, &buffer);
  CHECK(s == BK_ERROR_OUT_OF_MEMORY || s == BK_ERROR_INVALID_ARGUMENT, "alloc(SIZE_MAX / 2) on %s -> %s: %s",
        device, bk_status_name(s), bk_last_error());
  CHECK(contains(bk_last_error(), device), "the message names %s: %s", device, bk_last_error());
  CHECK(buffer == NULL, "out-parameter not reset");
  if (bk_buffer_type_max_size(type) != SIZE_MAX) {
    EXPECT_FAIL(bk_buffer_alloc(type, bk_buffer_type_max_size(type) + 1, &buffer), BK_ERROR_INVALID_ARGUMENT,
                device);
  }
  EXPECT_OK(bk_buffer_alloc(type, 0, &buffer));  // an empty buffer is a buffer
  CHECK(bk_buffer_size(buffer) == 0, "an empty buffer has size 0");
  bk_buffer_free(buffer);
  EXPECT_FAIL(bk_buffer_alloc(NULL, 16, &buffer), BK_ERROR_INVALID_ARGUMENT, "type is NULL");
  EXPECT_FAIL(bk_buffer_alloc(type, 16, NULL), BK_ERROR_INVALID_ARGUMENT, "out is NULL");
  EXPECT_FAIL(bk_buffer_write(NULL, 0, "x", 1), BK_ERROR_INVALID_ARGUMENT, "buffer is NULL");
  EXPECT_FAIL(bk_buffer_read(NULL, 0, &s, 1), BK_ERROR_INVALID_ARGUMENT, "buffer is NULL");
  EXPECT_FAIL(bk_buffer_fill(NULL, 0, 0, 1), BK_ERROR_INVALID_ARGUMENT, "buffer is NULL");
  CHECK(bk_buffer_size(NULL) == 0 && contains(bk_last_error(), "buffer is NULL"), "%s", bk_last_error());
  CHECK(bk_buffer_get_type(NULL) == NULL, "type of NULL buffer");
  bk_buffer_free(NULL);
}

static void check_type(bk_device* device, bk_buffer_type* type, const char* what) {
  const size_t align = bk_buffer_type_alignment(type);
  CHECK(bk_buffer_type_name(type) != NULL && bk_buffer_type_name(type)[0] != '\0', "a name");
  CHECK(bk_buffer_type_device(type) == device, "its device");
  CHECK(align >= 1 && (align & (align - 1)) == 0, "alignment %zu is a power of two", align);
  CHECK(bk_buffer_type_max_size(type) > 0, "max size");
  printf("  %s buffer type '%s': alignment %zu, max size %zu, host %s\n", what, bk_buffer_type_name(type),
         align, bk_buffer_type_max_size(type), bk_buffer_type_is_host(type) ? "yes" : "no");
  round_trip(type);
}

static void device(size_t index) {
  bk_device* d = NULL;
  bk_device* again = NULL;
  EXPECT_OK(bk_device_get(index, &d));
  if (d == NULL) return;
  const char* name = bk_device_name(d);
  const bk_device_type type = bk_device_get_type(d);
  CHECK(name != NULL && name[0] != '\0', "a name");
  CHECK(bk_device_description(d) != NULL, "a description");
  CHECK(bk_device_stable_id(d) != NULL, "a stable id, possibly empty");
  CHECK(strcmp(bk_device_type_name(type), "unknown") != 0, "type %d", (int)type);
  CHECK(index != 0 || (strcmp(name, "CPU") == 0 && type == BK_DEVICE_TYPE_CPU), "the CPU comes first: %s",
        name);
  EXPECT_OK(bk_device_find(name, &again));
  CHECK(again == d, "find(%s) gives the same handle", name);
  if (strcmp(name, "CPU") == 0) {
    EXPECT_OK(bk_device_find("cpu", &again));  // case-insensitive
    CHECK(again == d, "find(cpu) is the CPU");
  }
  size_t free_bytes = 0, total_bytes = 0;
  EXPECT_OK(bk_device_memory(d, &free_bytes, &total_bytes));
  EXPECT_OK(bk_device_memory(d, NULL, NULL));
  CHECK(free_bytes <= total_bytes, "free %zu <= total %zu", free_bytes, total_bytes);
  CHECK(type != BK_DEVICE_TYPE_CPU || total_bytes > 0, "the CPU has memory");
  bk_device_caps caps;
  EXPECT_OK(bk_device_caps_get(d, &caps));
  EXPECT_FAIL(bk_device_caps_get(d, NULL), BK_ERROR_INVALID_ARGUMENT, "out is NULL");
  printf("device %zu: %s (%s, %s), id '%s', %zu of %zu bytes free; caps: async %d host_buffer %d events %d\n",
         index, name, bk_device_type_name(type), bk_device_description(d), bk_device_stable_id(d), free_bytes,
         total_bytes, caps.async, caps.host_buffer, caps.events);
  describe(d);

  bk_buffer_type* type_handle = NULL;
  EXPECT_OK(bk_device_buffer_type(d, &type_handle));
  EXPECT_FAIL(bk_device_buffer_type(d, NULL), BK_ERROR_INVALID_ARGUMENT, "out is NULL");
  if (type_handle == NULL) return;
  CHECK(index != 0 || bk_buffer_type_is_host(type_handle), "the CPU's memory is host memory");
  check_type(d, type_handle, "device");
  allocation_errors(type_handle);
  bk_buffer_type* host = NULL;
  if (caps.host_buffer) {
    EXPECT_OK(bk_device_host_buffer_type(d, &host));
    CHECK(host != NULL && bk_buffer_type_is_host(host), "a host buffer type is host memory");
    if (host != NULL) check_type(d, host, "host");
  } else {
    EXPECT_FAIL(bk_device_host_buffer_type(d, &host), BK_ERROR_UNSUPPORTED, name);
    CHECK(host == NULL, "no host buffer type");
  }
}

// x [64, 8] input, w [64, 64] weight: h = mul_mat(w, x), n = rms_norm(h), out = add(n, h).
static bk_graph* build_graph(void) {
  bk_graph* g = NULL;
  bk_tensor *x = NULL, *w = NULL, *h = NULL, *n = NULL, *out = NULL, *s = NULL;
  EXPECT_OK(bk_graph_new(&g));
  if (g == NULL) return NULL;
  EXPECT_OK(bk_graph_input(g, "x", BK_DTYPE_F32, 64, 8, 1, 1, &x));
  EXPECT_OK(bk_graph_weight(g, "w", BK_DTYPE_F32, 64, 64, 1, 1, &w));
  EXPECT_OK(bk_graph_op(g, "mul_mat", "h", w, x, &h));
  EXPECT_OK(bk_graph_op_f(g, "rms_norm", "n", h, NULL, 1e-6f, &n));
  EXPECT_OK(bk_graph_op(g, "add", "out", n, h, &out));
  EXPECT_OK(bk_graph_output(g, out));
  EXPECT_OK(bk_graph_output(g, out));  // twice is once
  CHECK(contains(bk_tensor_name(h), "h"), "h is named h: %s", bk_tensor_name(h));
  EXPECT_OK(bk_graph_op(g, "silu", NULL, x, NULL, &s));  // not an output: not scheduled
  CHECK(s != NULL && strncmp(bk_tensor_name(s), "silu", 4) == 0, "a default name: %s", bk_tensor_name(s));

  bk_tensor* t = (bk_tensor*)&failures;
  EXPECT_FAIL(bk_graph_op(g, "frobnicate", NULL, x, x, &t), BK_ERROR_INVALID_ARGUMENT, "'frobnicate'");
  CHECK(t == NULL, "out-parameter not reset");
  EXPECT_FAIL(bk_graph_op(g, "scale", NULL, x, NULL, &t), BK_ERROR_INVALID_ARGUMENT, "bk_graph_op_f");
  EXPECT_FAIL(bk_graph_op_f(g, "add", NULL, x, x, 1.0f, &t), BK_ERROR_INVALID_ARGUMENT, "use bk_graph_op");
  EXPECT_FAIL(bk_graph_op(g, "add", NULL, x, NULL, &t), BK_ERROR_INVALID_ARGUMENT, "b is NULL");
  EXPECT_FAIL(bk_graph_op(g, "silu", NULL, x, x, &t), BK_ERROR_INVALID_ARGUMENT, "one source");
  EXPECT_FAIL(bk_graph_op(g, "add", NULL, x, w, &t), BK_ERROR_INVALID_ARGUMENT, "add");  // [64,8] + [64,64]
  EXPECT_FAIL(bk_graph_op(g, NULL, NULL, x, x, &t), BK_ERROR_INVALID_ARGUMENT, "op is NULL");
  EXPECT_FAIL(bk_graph_op(g, "add", NULL, NULL, x, &t), BK_ERROR_INVALID_ARGUMENT, "a is NULL");
  EXPECT_FAIL(bk_graph_op(NULL, "add", NULL, x, x, &t), BK_ERROR_INVALID_ARGUMENT, "graph is NULL");
  EXPECT_FAIL(bk_graph_op_f(g, "scale", NULL, x, NULL, 2.0f, NULL), BK_ERROR_INVALID_ARGUMENT, "out is NULL");
  EXPECT_FAIL(bk_graph_input(g, "bad", BK_DTYPE_F32, 4, -1, 1, 1, &t), BK_ERROR_INVALID_ARGUMENT, "'bad'");
  EXPECT_FAIL(bk_graph_input(g, NULL, BK_DTYPE_F32, 1, 1, 1, 1, &t), BK_ERROR_INVALID_ARGUMENT,
              "name is NULL");
  EXPECT_FAIL(bk_graph_weight(g, "w2", (bk_dtype)7, 1, 1, 1, 1, &t), BK_ERROR_INVALID_ARGUMENT, "bk_dtype");
  EXPECT_FAIL(bk_graph_output(g, NULL), BK_ERROR_INVALID_ARGUMENT, "tensor is NULL");
  CHECK(bk_tensor_name(NULL) == NULL, "name of NULL tensor");

  bk_graph* other = NULL;
  bk_tensor* foreign = NULL;
  EXPECT_OK(bk_graph_new(&other));
  EXPECT_OK(bk_graph_input(other, "y", BK_DTYPE_F32, 64, 8, 1, 1, &foreign));
  EXPECT_FAIL(bk_graph_op(g, "add", NULL, x, foreign, &t), BK_ERROR_INVALID_ARGUMENT, "another graph");
  EXPECT_FAIL(bk_graph_output(g, foreign), BK_ERROR_INVALID_ARGUMENT, "another graph");
  char* json = NULL;
  EXPECT_FAIL(bk_sched_report_json(other, NULL, 0, NULL, &json), BK_ERROR_INVALID_ARGUMENT, "no output");
  bk_graph_free(other);
  bk_graph_free(NULL);
  EXPECT_FAIL(bk_graph_new(NULL), BK_ERROR_INVALID_ARGUMENT, "out is NULL");
  return g;
}

static void check_report(const char* json) {
  CHECK(json[0] == '{', "a JSON object: %.40s", json);
  static const char* const keys[] = {"\"backends\":[",      "\"planned\":true", "\"nodes\":[",
                                     "\"leafs\":[",         "\"splits\":[",     "\"totals\":{",
                                     "\"idle_backends\":[", "\"name\":\"h\"",   "\"op\":\"mul_mat\""};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; ++i) CHECK(contains(json, keys[i]), "has %s", keys[i]);
}

// Another device than the CPU, or NULL.
static const char* other_device(void) {
  for (size_t i = 0; i < bk_device_count(); ++i) {
    bk_device* d = NULL;
    if (bk_device_get(i, &d) == BK_OK && strcmp(bk_device_name(d), "CPU") != 0) return bk_device_name(d);
  }
  return NULL;
}

static void sched_report(void) {
  bk_graph* g = build_graph();
  char* json = NULL;
  char* again = NULL;
  if (g == NULL) return;
  EXPECT_OK(bk_sched_report_json(g, NULL, 0, NULL, &json));  // every device, the CPU last
  if (json != NULL) check_report(json);
  EXPECT_OK(bk_sched_report_json(g, NULL, 0, NULL, &again));  // the same again
  CHECK(json != NULL && again != NULL && strcmp(json, again) == 0, "scheduling twice gives the same record");
  printf("sched report over every device: %zu bytes of JSON\n", json != NULL ? strlen(json) : 0);
  bk_free_string(json);
  bk_free_string(again);

  const char* const cpu_only[] = {"CPU"};
  const bk_sched_options on_cpu = {.weights_on = "cpu", .copies = 2};
  EXPECT_OK(bk_sched_report_json(g, cpu_only, 1, &on_cpu, &json));
  CHECK(
      contains(json, "\"backends\":[\"CPU\"]") && contains(json, "\"backend\":\"CPU\",\"cause\":\"weight\""),
      "everything on the CPU: %.300s", json);
  bk_free_string(json);

  // gpu0 (BK_SIM_DEVICES='gpu0:type=gpu,ops=mul_mat+add') runs the mul_mat whose weight it holds,
  // not the rms_norm, which it does not run.
  bk_device* gpu0 = NULL;
  if (bk_device_find("gpu0", &gpu0) == BK_OK) {
    const char* const names[] = {"gpu0", "CPU"};
    const bk_sched_options weights = {.weights_on = "gpu0"};
    EXPECT_OK(bk_sched_report_json(g, names, 2, &weights, &json));
    CHECK(contains(json,
                   "\"name\":\"h\",\"op\":\"mul_mat\",\"type\":\"f32\",\"shape\":[64,8,1,1],"
                   "\"backend\":\"gpu0\",\"cause\":\"weight\""),
          "h runs on gpu0 because of its weight: %s", json);
    CHECK(contains(json, "\"name\":\"n\",\"op\":\"rms_norm\"") && contains(json, "\"unsupported_op\""),
          "n passes gpu0 over: %s", json);
    printf("sched report over gpu0, CPU with the weights on gpu0: h on gpu0 (weight)\n");
    bk_free_string(json);
  }

  // Errors: devices that do not exist, twice, out of order; weights elsewhere; options.
  const char* const unknown[] = {"NoSuchDevice7"};
  EXPECT_FAIL(bk_sched_report_json(g, unknown, 1, NULL, &json), BK_ERROR_NOT_FOUND, "'NoSuchDevice7'");
  CHECK(json == NULL, "no JSON on failure");
  const char* const twice[] = {"CPU", "cpu"};
  EXPECT_FAIL(bk_sched_report_json(g, twice, 2, NULL, &json), BK_ERROR_INVALID_ARGUMENT, "twice");
  const char* const null_name[] = {NULL};
  EXPECT_FAIL(bk_sched_report_json(g, null_name, 1, NULL, &json), BK_ERROR_INVALID_ARGUMENT, "[0] is NULL");
  EXPECT_FAIL(bk_sched_report_json(g, NULL, 1, NULL, &json), BK_ERROR_INVALID_ARGUMENT,
              "device_names is NULL");
  const bk_sched_options bad_copies = {.copies = -1};
  EXPECT_FAIL(bk_sched_report_json(g, NULL, 0, &bad_copies, &json), BK_ERROR_INVALID_ARGUMENT, "copies");
  EXPECT_FAIL(bk_sched_report_json(g, NULL, 0, NULL, NULL), BK_ERROR_INVALID_ARGUMENT, "json is NULL");
  EXPECT_FAIL(bk_sched_report_json(NULL, NULL, 0, NULL, &json), BK_ERROR_INVALID_ARGUMENT, "graph is NULL");
  const char* other = other_device();
  if (other != NULL) {
    const char* const cpu_first[] = {"CPU", other};
    EXPECT_FAIL(bk_sched_report_json(g, cpu_first, 2, NULL, &json), BK_ERROR_INVALID_ARGUMENT, "last");
    const bk_sched_options elsewhere = {.weights_on = other};
    EXPECT_FAIL(bk_sched_report_json(g, cpu_only, 1, &elsewhere, &json), BK_ERROR_INVALID_ARGUMENT,
                "not one of the scheduled devices");
  }
  // A scheduled graph is built: it takes no more tensors.
  bk_tensor* t = NULL;
  EXPECT_FAIL(bk_graph_input(g, "late", BK_DTYPE_F32, 4, 1, 1, 1, &t), BK_ERROR_INVALID_ARGUMENT,
              "scheduled");
  bk_graph_free(g);
}

int main(void) {
  version_and_status();
  const size_t count = bk_device_count();
  CHECK(count >= 1, "the CPU at least: %s", bk_last_error());
  registry_errors(count);
  for (size_t i = 0; i < count; ++i) device(i);
  sched_report();
  if (failures != 0) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("all checks passed on %zu device(s)\n", count);
  return 0;
}
