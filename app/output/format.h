// SPDX-License-Identifier: MIT
#pragma once
// Number formatting for human output. Tables print bare numbers under a header that names the
// unit ("write GB/s"), so these return numbers without units unless the name says otherwise.

#include <cstddef>
#include <cstdint>
#include <string>

namespace bkctl {

// Bytes as GiB with one decimal: "21.3".
std::string format_gib(size_t bytes);
// "21.3 / 23.4 GiB": free and total memory of a device.
std::string format_memory(size_t free, size_t total);
// Seconds as milliseconds with enough digits to be useful: "0.012", "1.53", "250".
std::string format_ms(double seconds);
// Bytes over seconds as decimal GB/s with two decimals; "-" when the time is zero.
std::string format_gbps(size_t bytes, double seconds);
// Decimal GB/s as a number for JSON; 0 when the time is zero.
double gbps(size_t bytes, double seconds);
// A 64-bit word as "0x0123456789abcdef".
std::string format_hex64(uint64_t value);
// The largest whole size at or below bytes written the way --size accepts it: "10GiB", "512MiB",
// "4096" (for suggestions in error messages).
std::string format_size_arg(size_t bytes);

}  // namespace bkctl
