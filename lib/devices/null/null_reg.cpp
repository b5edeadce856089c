// SPDX-License-Identifier: MIT
// The Null reg: a fixed list of NullDevices, created once and never moved (the registry and every
// caller keep Device pointers).
#include "devices/null/null_reg.h"

#include <fmt/format.h>

#include <charconv>
#include <deque>

#include "bk/error.h"
#include "devices/null/null_device.h"

namespace bk {
namespace {

class NullReg final : public BackendReg {
 public:
  NullReg(size_t count, std::string status) : status_(std::move(status)) {
    for (size_t i = 0; i < count; ++i) devices_.emplace_back(*this, i);
  }

  std::string name() const override { return "Null"; }
  std::vector<Device*> devices() override {
    std::vector<Device*> out;
    for (NullDevice& d : devices_) out.push_back(&d);
    return out;
  }
  // Empty when there are devices: a reason is only for "why none".
  std::string status() const override { return devices_.empty() ? status_ : std::string(); }

 private:
  std::deque<NullDevice> devices_;  // deque: devices never move once handed out
  std::string status_;
};

}  // namespace

std::unique_ptr<BackendReg> make_null_reg(size_t count, std::string status) {
  return std::make_unique<NullReg>(count, std::move(status));
}

size_t parse_null_device_count(std::string_view text) {
  size_t count = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), count);
  if (ec != std::errc() || end != text.data() + text.size() || count > kNullMaxDevices) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("BK_NULL_DEVICES: '{}' is not a device count from 0 to {} "
                            "(BK_NULL_DEVICES=2 gives Null0 and Null1)",
                            text, kNullMaxDevices));
  }
  return count;
}

}  // namespace bk
