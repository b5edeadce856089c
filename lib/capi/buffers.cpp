// SPDX-License-Identifier: MIT
// The C API's buffer types (the devices') and buffers (the caller's). Bounds checks and their
// messages are bk::Buffer's; transfers go through each device's own path.
#include "capi/errors.h"
#include "capi/handles.h"

using bk::capi::get;
using bk::capi::guard;
using bk::capi::require;
using bk::capi::reset;

extern "C" {

BK_API bk_status bk_device_buffer_type(bk_device* device, bk_buffer_type** out) {
  reset(out);
  return guard("bk_device_buffer_type", [&] {
    require(out, "out");
    bk::capi::load_buffer_types(require(device, "device"));
    *out = device->buffer_type.get();
  });
}

BK_API bk_status bk_device_host_buffer_type(bk_device* device, bk_buffer_type** out) {
  reset(out);
  return guard("bk_device_host_buffer_type", [&] {
    require(out, "out");
    bk::capi::load_buffer_types(require(device, "device"));
    if (device->host_buffer_type == nullptr) {
      throw bk::Error(bk::ErrorCode::unsupported,
                      device->name + " has no host buffer type (its caps say host_buffer = false)");
    }
    *out = device->host_buffer_type.get();
  });
}

BK_API const char* bk_buffer_type_name(const bk_buffer_type* type) {
  return get("bk_buffer_type_name", static_cast<const char*>(nullptr),
             [&] { return require(type, "type").name.c_str(); });
}

BK_API bk_device* bk_buffer_type_device(const bk_buffer_type* type) {
  return get("bk_buffer_type_device", static_cast<bk_device*>(nullptr),
             [&] { return require(type, "type").device; });
}

BK_API size_t bk_buffer_type_alignment(const bk_buffer_type* type) {
  return get("bk_buffer_type_alignment", size_t{0}, [&] { return require(type, "type").type->alignment(); });
}

BK_API size_t bk_buffer_type_max_size(const bk_buffer_type* type) {
  return get("bk_buffer_type_max_size", size_t{0}, [&] { return require(type, "type").type->max_size(); });
}

BK_API bool bk_buffer_type_is_host(const bk_buffer_type* type) {
  return get("bk_buffer_type_is_host", false, [&] { return require(type, "type").type->is_host(); });
}

BK_API bk_status bk_buffer_alloc(bk_buffer_type* type, size_t size, bk_buffer** out) {
  reset(out);
  return guard("bk_buffer_alloc", [&] {
    require(out, "out");
    auto buffer = std::make_unique<bk_buffer>();
    buffer->buffer = require(type, "type").type->alloc(size);
    buffer->type = type;
    *out = buffer.release();
  });
}

BK_API void bk_buffer_free(bk_buffer* buffer) {
  // A device's buffer destructor must not throw; should one, the message is kept.
  get("bk_buffer_free", 0, [&] {
    delete buffer;
    return 0;
  });
}

BK_API size_t bk_buffer_size(const bk_buffer* buffer) {
  return get("bk_buffer_size", size_t{0}, [&] { return require(buffer, "buffer").buffer->size(); });
}

BK_API bk_buffer_type* bk_buffer_get_type(const bk_buffer* buffer) {
  return get("bk_buffer_get_type", static_cast<bk_buffer_type*>(nullptr),
             [&] { return require(buffer, "buffer").type; });
}

BK_API bk_status bk_buffer_write(bk_buffer* buffer, size_t offset, const void* src, size_t size) {
  return guard("bk_buffer_write", [&] {
    require(buffer, "buffer");
    require(src, "src");
    buffer->buffer->write(offset, src, size);
  });
}

BK_API bk_status bk_buffer_read(const bk_buffer* buffer, size_t offset, void* dst, size_t size) {
  return guard("bk_buffer_read", [&] {
    require(buffer, "buffer");
    require(dst, "dst");
    buffer->buffer->read(offset, dst, size);
  });
}

BK_API bk_status bk_buffer_fill(bk_buffer* buffer, size_t offset, uint8_t value, size_t size) {
  return guard("bk_buffer_fill", [&] { require(buffer, "buffer").buffer->fill(offset, value, size); });
}

}  // extern "C"
