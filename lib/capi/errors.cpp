// SPDX-License-Identifier: MIT
// Status codes, the per-thread last error, and strings handed to the caller.
#include "capi/errors.h"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>

namespace bk::capi {
namespace {

static_assert(BK_ERROR_CHECK_FAILED == static_cast<int>(ErrorCode::check_failed));
static_assert(BK_ERROR_INVALID_ARGUMENT == static_cast<int>(ErrorCode::invalid_argument));
static_assert(BK_ERROR_NOT_FOUND == static_cast<int>(ErrorCode::not_found));
static_assert(BK_ERROR_OUT_OF_MEMORY == static_cast<int>(ErrorCode::out_of_memory));
static_assert(BK_ERROR_DEVICE_ERROR == static_cast<int>(ErrorCode::device_error));
static_assert(BK_ERROR_TIMEOUT == static_cast<int>(ErrorCode::timeout));
static_assert(BK_ERROR_UNSUPPORTED == static_cast<int>(ErrorCode::unsupported));

thread_local std::string last_error;

// Where a message that cannot be stored (no memory for it) is reported instead.
constexpr const char* kNoMemoryForMessage = "out of memory (the error message could not be stored)";
thread_local bool message_lost = false;

bk_status record(bk_status status, const char* function, const char* what) noexcept {
  try {
    last_error = std::string(function) + ": " + what;
    message_lost = false;
  } catch (...) {
    message_lost = true;
  }
  return status;
}

}  // namespace

void set_last_error(const std::string& message) noexcept {
  try {
    last_error = message;
    message_lost = false;
  } catch (...) {
    message_lost = true;
  }
}

void clear_last_error() noexcept {
  last_error.clear();
  message_lost = false;
}

bk_status fail_current(const char* function) noexcept {
  try {
    throw;
  } catch (const Error& e) {
    return record(static_cast<bk_status>(e.code()), function, e.what());
  } catch (const std::bad_alloc& e) {
    return record(BK_ERROR_OUT_OF_MEMORY, function, e.what());
  } catch (const std::exception& e) {
    return record(BK_ERROR_INTERNAL, function, e.what());
  } catch (...) {
    return record(BK_ERROR_INTERNAL, function, "an unknown exception");
  }
}

char* copy_string(const std::string& text) {
  char* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (out == nullptr) throw std::bad_alloc();
  std::memcpy(out, text.c_str(), text.size() + 1);
  return out;
}

}  // namespace bk::capi

extern "C" {

BK_API const char* bk_status_name(bk_status status) {
  switch (status) {
    case BK_OK:
      return "ok";
    case BK_ERROR_INTERNAL:
      return "internal";
    case BK_ERROR_CHECK_FAILED:
    case BK_ERROR_INVALID_ARGUMENT:
    case BK_ERROR_NOT_FOUND:
    case BK_ERROR_OUT_OF_MEMORY:
    case BK_ERROR_DEVICE_ERROR:
    case BK_ERROR_TIMEOUT:
    case BK_ERROR_UNSUPPORTED:
      return bk::error_code_name(static_cast<bk::ErrorCode>(status));
    case BK_STATUS_MAX_ENUM:
      break;
  }
  return "unknown";
}

BK_API const char* bk_last_error(void) {
  return bk::capi::message_lost ? bk::capi::kNoMemoryForMessage : bk::capi::last_error.c_str();
}

BK_API void bk_free_string(char* string) { std::free(string); }

}  // extern "C"
