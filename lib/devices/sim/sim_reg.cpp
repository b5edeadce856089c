// SPDX-License-Identifier: MIT
// The "Sim" backend family: one SimDevice per configured entry.
#include <chrono>
#include <deque>
#include <thread>

#include "devices/sim/sim_device.h"

namespace bk {
namespace {

class SimReg final : public BackendReg {
 public:
  SimReg(std::vector<SimDeviceConfig> configs, std::string status) : status_(std::move(status)) {
    for (SimDeviceConfig& config : configs) {
      if (config.fault == SimFault::hang_init) sim_hang_forever();
      devices_.emplace_back(*this, std::move(config));
    }
  }

  std::string name() const override { return "Sim"; }
  std::vector<Device*> devices() override {
    std::vector<Device*> out;
    for (SimDevice& d : devices_) out.push_back(&d);
    return out;
  }
  std::string status() const override { return devices_.empty() ? status_ : std::string(); }

 private:
  std::deque<SimDevice> devices_;  // deque: devices never move once handed out
  std::string status_;
};

}  // namespace

void sim_hang_forever() {
  for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}

std::unique_ptr<BackendReg> make_sim_reg(std::string_view config, std::string status) {
  return std::make_unique<SimReg>(parse_sim_config(config), std::move(status));
}

}  // namespace bk
