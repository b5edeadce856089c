// SPDX-License-Identifier: MIT
#pragma once
// How the C API (bk/bk.h) keeps exceptions inside: every entry point runs its body through
// guard() or get(), which turn whatever was thrown into a bk_status and the calling thread's
// last error, prefixed with the entry point's name. require() makes a NULL argument an
// Error(invalid_argument) that names it.

#include <string>

#include "bk/bk.h"
#include "bk/error.h"

namespace bk::capi {

void set_last_error(const std::string& message) noexcept;
void clear_last_error() noexcept;

// The status of the exception being handled (call it only inside a catch block); records its
// message as "<function>: <what>".
bk_status fail_current(const char* function) noexcept;

// Runs body() for an entry point that returns a status: BK_OK, or the status of what it threw.
template <typename Body>
bk_status guard(const char* function, Body&& body) noexcept {
  clear_last_error();
  try {
    body();
    return BK_OK;
  } catch (...) {
    return fail_current(function);
  }
}

// Runs body() for a getter that returns a value: that value, or `fallback` when it threw (the
// message is set, the status is dropped). Leaves the last error alone on success.
template <typename T, typename Body>
T get(const char* function, T fallback, Body&& body) noexcept {
  try {
    return body();
  } catch (...) {
    fail_current(function);
    return fallback;
  }
}

// Error(invalid_argument) with the message: an argument the call cannot take.
[[noreturn]] inline void invalid(const std::string& message) {
  throw Error(ErrorCode::invalid_argument, message);
}

// *pointer, or Error(invalid_argument) "<name> is NULL".
template <typename T>
T& require(T* pointer, const char* name) {
  if (pointer == nullptr) throw Error(ErrorCode::invalid_argument, std::string(name) + " is NULL");
  return *pointer;
}

// The same for a data pointer (src, dst).
inline void require(const void* pointer, const char* name) {
  if (pointer == nullptr) throw Error(ErrorCode::invalid_argument, std::string(name) + " is NULL");
}

// Clears an out-parameter first, so that it is NULL (or 0) whenever the call fails.
template <typename T>
void reset(T* out) noexcept {
  if (out != nullptr) *out = T{};
}

// A copy of text the caller frees with bk_free_string().
char* copy_string(const std::string& text);

}  // namespace bk::capi
