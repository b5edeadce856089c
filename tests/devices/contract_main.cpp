// SPDX-License-Identifier: MIT
// The device contract suite: every contract (contracts.h) on every device of the registry,
// registered at start-up as Contract/<Reg>/<Device>.<contract>. Device names are written nowhere
// here, so a device kind added as a folder joins by being present. A reg without devices gets
// one skipped test, Contract/<Reg>.no_devices, carrying its status(); a plugin that failed to
// load gets a failing one, Contract/Plugins.<name>.
//
// Each run of the suite is an executable of its own (tests/devices/CMakeLists.txt) that sets its
// variables (run_environment()) before the registry is built, so that test discovery and every
// test run see the same devices whatever the environment of the build:
//
//   build/bin/bk_device_contracts                 # CPU, Vulkan0 on lavapipe, CUDA when present
//   build/bin/bk_device_contracts_null --gtest_filter='Contract/Null/*'
//   bk_device_contracts --inherit-environment     # the caller's devices as they are (a GPU
//                                                 # machine's own Vulkan driver: gpu-check.sh)
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "bk/registry.h"
#include "contracts.h"

namespace bk::contract {
namespace {

// gtest names may hold letters, digits and '_' only.
std::string test_name(const std::string& s) {
  std::string out = s;
  for (char& ch : out) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return out;
}

class ContractTest : public testing::Test {
 public:
  ContractTest(Device& device, const Contract& contract) : device_(&device), contract_(&contract) {}
  void TestBody() override { contract_->run(*device_); }

 private:
  Device* device_;
  const Contract* contract_;
};

// A test whose outcome is known at registration: skipped or failed with a message.
class VerdictTest : public testing::Test {
 public:
  VerdictTest(bool failed, std::string message) : failed_(failed), message_(std::move(message)) {}
  void TestBody() override {
    if (failed_) FAIL() << message_;
    GTEST_SKIP() << message_;
  }

 private:
  bool failed_;
  std::string message_;
};

void register_verdict(const std::string& suite, const std::string& name, bool failed,
                      const std::string& message) {
  testing::RegisterTest(suite.c_str(), test_name(name).c_str(), nullptr, nullptr, __FILE__, __LINE__,
                        [=]() -> testing::Test* { return new VerdictTest(failed, message); });
}

void register_reg(BackendReg& reg) {
  const std::vector<Device*> devices = reg.devices();
  if (devices.empty()) {
    register_verdict("Contract/" + test_name(reg.name()), "no_devices", false,
                     "no " + reg.name() + " device: " + reg.status());
  }
  for (Device* device : devices) {
    const std::string suite = "Contract/" + test_name(reg.name()) + "/" + test_name(device->name());
    for (const Contract& c : all_contracts()) {
      testing::RegisterTest(suite.c_str(), c.name, nullptr, nullptr, __FILE__, __LINE__,
                            [device, &c]() -> testing::Test* { return new ContractTest(*device, c); });
    }
  }
}

void register_all(const Registry& registry) {
  for (const PluginAttempt& a : registry.plugin_report()) {
    if (a.status == PluginAttempt::Status::failed) {
      register_verdict("Contract/Plugins", a.name, true, "plugin " + a.path + " failed to load: " + a.reason);
    }
  }
  for (BackendReg* reg : registry.regs()) register_reg(*reg);
}

// Sets (an empty value: unsets) each NAME=VALUE of the run; false after saying why it could not.
bool apply_run_environment() {
  for (const char* setting : run_environment()) {
    const std::string text = setting;
    const size_t eq = text.find('=');
    const std::string name = text.substr(0, eq);
    const std::string value = eq == std::string::npos ? std::string() : text.substr(eq + 1);
    if (value.empty() ? unsetenv(name.c_str()) : setenv(name.c_str(), value.c_str(), 1)) {
      std::perror(("bk_device_contracts: setting " + name).c_str());
      return false;
    }
  }
  return true;
}

}  // namespace
}  // namespace bk::contract

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const bool inherit = argc == 2 && std::string(argv[1]) == "--inherit-environment";
  if (argc > 1 && !inherit) {
    std::fprintf(stderr, "bk_device_contracts: unknown option '%s' (gtest's, or --inherit-environment)\n",
                 argv[1]);
    return 2;
  }
  if (!inherit && !bk::contract::apply_run_environment()) return 2;
  try {
    bk::contract::register_all(bk::Registry::global());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bk_device_contracts: cannot enumerate devices: %s\n", e.what());
    return 2;
  }
  return RUN_ALL_TESTS();
}
