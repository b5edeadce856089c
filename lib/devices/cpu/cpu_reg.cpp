// SPDX-License-Identifier: MIT
#include "bk/cpu.h"

#include "devices/cpu/cpu_backend.h"
#include "devices/cpu/cpu_device.h"

namespace bk {
namespace {

class CpuReg final : public BackendReg {
 public:
  CpuReg() : device_(*this) {}

  std::string name() const override { return "CPU"; }
  std::vector<Device*> devices() override { return {&device_}; }
  void* proc_address(const std::string& name) override {
    // Function-to-object pointer casts are conditionally supported; every POSIX and Windows
    // compiler supports them (dlsym relies on it).
    if (name == "set_threads") return reinterpret_cast<void*>(&cpu_set_threads);
    if (name == "set_abort_callback") return reinterpret_cast<void*>(&cpu_set_abort_callback);
    return nullptr;
  }

 private:
  CpuDevice device_;
};

}  // namespace

BackendReg& cpu_reg() {
  static CpuReg reg;
  return reg;
}

}  // namespace bk
