// SPDX-License-Identifier: MIT
// The CUDA plugin as the registry sees it, on any machine: it loads, names its devices (none
// without a driver) and says why there are none, without printing anything.

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <regex>

#include "cuda_test_util.h"

namespace bk {
namespace {

bool driver_present() {
  void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (lib == nullptr) return false;
  dlclose(lib);
  return true;
}

const PluginAttempt* cuda_attempt(const Registry& r) {
  for (const PluginAttempt& a : r.plugin_report()) {
    if (a.name == "cuda") return &a;
  }
  return nullptr;
}

TEST(CudaPlugin, LoadsSilentlyAndExplainsMissingDevices) {
  testing::internal::CaptureStderr();
  testing::internal::CaptureStdout();
  Registry r = cuda_test::make_cuda_registry();
  const std::string out = testing::internal::GetCapturedStdout();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "");
  EXPECT_EQ(out, "");

  const PluginAttempt* attempt = cuda_attempt(r);
  ASSERT_NE(attempt, nullptr);
  ASSERT_EQ(attempt->status, PluginAttempt::Status::loaded) << attempt->reason;
  BackendReg* reg = r.find_reg("cuda");
  ASSERT_NE(reg, nullptr);
  EXPECT_EQ(reg->name(), "CUDA");
  if (!driver_present()) {
    EXPECT_TRUE(reg->devices().empty());
    EXPECT_EQ(reg->status(), "CUDA driver not found (cudaGetDeviceCount: cudaErrorInsufficientDriver, 35)");
    EXPECT_TRUE(r.devices_of_type(DeviceType::gpu).empty());
    EXPECT_EQ(r.devices().size(), 1u) << "only the CPU: " << r.device_names();
  } else if (reg->devices().empty()) {
    EXPECT_FALSE(reg->status().empty()) << "zero devices with a driver present must say why";
  } else {
    EXPECT_EQ(reg->status(), "");
  }
}

TEST(CudaPlugin, DevicesAreNamedAndIdentified) {
  const std::regex pci("[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-9a-f]");
  const auto devices = cuda_test::cuda_devices();
  for (size_t i = 0; i < devices.size(); ++i) {
    const Device& d = *devices[i];
    EXPECT_EQ(d.name(), "CUDA" + std::to_string(i));
    EXPECT_TRUE(d.type() == DeviceType::gpu || d.type() == DeviceType::igpu);
    EXPECT_FALSE(d.description().empty());
    EXPECT_TRUE(std::regex_match(d.stable_id(), pci)) << d.stable_id();
    EXPECT_EQ(&d.reg(), cuda_test::cuda_reg());
  }
  if (devices.empty()) GTEST_SKIP() << "no CUDA device: " << cuda_test::cuda_reg()->status();
}

TEST(CudaPlugin, OffersTheTf32Switch) {
  BackendReg* reg = cuda_test::cuda_reg();
  ASSERT_NE(reg, nullptr);
  EXPECT_NE(reg->proc_address("cuda_set_tf32"), nullptr);
  EXPECT_EQ(reg->proc_address("no_such_entry"), nullptr);
}

TEST(CudaPlugin, CpuStillWorksBesideIt) {
  Registry& r = cuda_test::registry();
  ASSERT_NE(r.find_device("CPU"), nullptr);
  EXPECT_NE(r.init_best(), nullptr);
}

}  // namespace
}  // namespace bk
