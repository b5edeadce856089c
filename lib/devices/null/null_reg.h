// SPDX-License-Identifier: MIT
#pragma once
// The "Null" backend family: the smallest complete device kind, kept as the template for the next
// one (README.md in this folder). A reg owns its devices for the life of the process; devices()
// is cheap and creates nothing.
//
// The devices come from BK_NULL_DEVICES=<n> (Null0 .. Null<n-1>); without it the reg has zero
// devices and status() says why, so a default `bkctl devices` shows none.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "bk/device.h"

namespace bk {

// A reg holding `count` devices named Null0, Null1, ...; `status` is what status() says when
// count is 0.
std::unique_ptr<BackendReg> make_null_reg(size_t count, std::string status);

// The device count BK_NULL_DEVICES holds: a whole number from 0 to kNullMaxDevices. Throws
// Error(invalid_argument) quoting the text and saying what is accepted.
inline constexpr size_t kNullMaxDevices = 64;
size_t parse_null_device_count(std::string_view text);

}  // namespace bk
