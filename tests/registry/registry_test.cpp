// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <string>

#include "bk/cpu.h"
#include "bk/error.h"
#include "bk/plugin_api.h"
#include "bk/registry.h"

namespace bk {
namespace {

const std::string kDir = BK_TEST_PLUGIN_DIR;

Registry only_cpu() { return Registry(RegistryOptions{.builtin_regs = {&cpu_reg()}, .load_plugins = false}); }

Registry with_plugins(std::vector<std::string> names) {
  return Registry(RegistryOptions{.builtin_regs = {&cpu_reg()},
                                  .load_plugins = true,
                                  .search_path = {"/nonexistent-dir", kDir},
                                  .plugin_names = std::move(names)});
}

const PluginAttempt* attempt_for(const Registry& r, const std::string& name) {
  for (const auto& a : r.plugin_report()) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

TEST(Registry, AlwaysHasTheCpu) {
  Registry r = only_cpu();
  ASSERT_NE(r.find_reg("CPU"), nullptr);
  Device& cpu = r.device("CPU");
  EXPECT_EQ(cpu.name(), "CPU");
  EXPECT_EQ(cpu.type(), DeviceType::cpu);
  EXPECT_EQ(&r.device(0), &cpu);
  EXPECT_TRUE(r.plugin_report().empty());
}

TEST(Registry, LookupIsCaseInsensitive) {
  Registry r = only_cpu();
  EXPECT_EQ(r.find_device("cpu"), r.find_device("CPU"));
  EXPECT_EQ(r.find_reg("cPu"), r.find_reg("CPU"));
  EXPECT_EQ(r.devices_of_type(DeviceType::cpu).size(), 1u);
  EXPECT_TRUE(r.devices_of_type(DeviceType::gpu).empty());
}

TEST(Registry, UnknownDeviceListsTheOnesThatExist) {
  Registry r = only_cpu();
  EXPECT_EQ(r.find_device("Vulkan7"), nullptr);
  try {
    r.device("Vulkan7");
    FAIL() << "expected not_found";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::not_found);
    EXPECT_NE(std::string(e.what()).find("Vulkan7"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("CPU"), std::string::npos);
  }
  EXPECT_THROW(r.device(99), Error);
  EXPECT_THROW(r.init_by_type(DeviceType::gpu), Error);
}

// A kind that is registered but found no device, as the CUDA plugin is without a driver.
class EmptyReg final : public BackendReg {
 public:
  std::string name() const override { return "Fake"; }
  std::vector<Device*> devices() override { return {}; }
  std::string status() const override { return "fake driver not installed"; }
};

TEST(Registry, UnknownDeviceOfAnEmptyKindSaysWhyItHasNone) {
  Registry r = only_cpu();
  EmptyReg empty;
  r.add(empty);
  try {
    r.device("fake0");
    FAIL() << "expected not_found";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::not_found);
    EXPECT_NE(std::string(e.what()).find("Fake has no devices here: fake driver not installed"),
              std::string::npos)
        << e.what();
  }
  try {
    r.device("Vulkan0");
    FAIL() << "expected not_found";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).find("has no devices"), std::string::npos) << e.what();
  }
}

TEST(Registry, InitBestFallsBackToTheCpu) {
  Registry r = only_cpu();
  auto backend = r.init_best();
  ASSERT_NE(backend, nullptr);
  EXPECT_EQ(&backend->device(), &r.device("CPU"));
  EXPECT_EQ(&r.init_by_name("cpu")->device(), &r.device("CPU"));
}

TEST(Registry, LoadsAGoodPlugin) {
  Registry r = with_plugins({"good"});
  const PluginAttempt* a = attempt_for(r, "good");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->status, PluginAttempt::Status::loaded) << a->reason;
  EXPECT_EQ(a->path, kDir + "/libbk-good.so");
  ASSERT_NE(r.find_device("fake0"), nullptr);
  EXPECT_EQ(r.find_device("Fake0")->reg().name(), "Fake");
  EXPECT_EQ(r.devices().size(), 2u);
  EXPECT_EQ(r.devices_of_type(DeviceType::accel).size(), 1u);
}

struct BrokenCase {
  const char* name;
  PluginAttempt::Status status;
  const char* reason_contains;
};

class BrokenPlugin : public ::testing::TestWithParam<BrokenCase> {};

TEST_P(BrokenPlugin, IsRecordedWithItsReasonAndHidesNothing) {
  const BrokenCase& c = GetParam();
  // The broken plugin is tried between two others; the good one must still load.
  Registry r = with_plugins({c.name, "good"});
  const PluginAttempt* a = attempt_for(r, c.name);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->status, c.status);
  EXPECT_NE(a->reason.find(c.reason_contains), std::string::npos) << a->reason;
  EXPECT_NE(r.find_device("Fake0"), nullptr);
  EXPECT_NE(r.find_device("CPU"), nullptr);
}

INSTANTIATE_TEST_SUITE_P(
    Registry, BrokenPlugin,
    ::testing::Values(
        BrokenCase{"nosymbol", PluginAttempt::Status::failed, "missing symbol bk_plugin_init_v1"},
        BrokenCase{"oldapi", PluginAttempt::Status::failed, "wrong API version"},
        BrokenCase{"changedabi", PluginAttempt::Status::failed, "built against other bk headers"},
        BrokenCase{"nostamp", PluginAttempt::Status::failed, "no ABI stamp"},
        BrokenCase{"initfail", PluginAttempt::Status::failed, "driver exploded during init"},
        BrokenCase{"undefined", PluginAttempt::Status::failed, "bk_symbol_that_does_not_exist"},
        BrokenCase{"garbage", PluginAttempt::Status::failed, "dlopen failed"},
        BrokenCase{"absent", PluginAttempt::Status::not_found, "/nonexistent-dir"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

TEST(Registry, AbiMismatchNamesBothStamps) {
  Registry r = with_plugins({"changedabi"});
  const PluginAttempt* a = attempt_for(r, "changedabi");
  ASSERT_NE(a, nullptr);
  EXPECT_NE(a->reason.find(BK_ABI_STAMP), std::string::npos) << a->reason;
  EXPECT_NE(a->reason.find("rebuild the plugin"), std::string::npos) << a->reason;
  EXPECT_EQ(r.find_device("Fake0"), nullptr);
}

// Without a list of names, every libbk-<name>.so in the search path is tried, so a device kind
// built outside this tree loads too; the build's own plugins are looked for as well.
TEST(Registry, FindsPluginsItWasNotBuiltWith) {
  Registry r(RegistryOptions{.builtin_regs = {&cpu_reg()}, .load_plugins = true, .search_path = {kDir}});
  const PluginAttempt* good = attempt_for(r, "good");
  ASSERT_NE(good, nullptr);
  EXPECT_EQ(good->status, PluginAttempt::Status::loaded) << good->reason;
  ASSERT_NE(attempt_for(r, "garbage"), nullptr);
  EXPECT_EQ(attempt_for(r, "garbage")->status, PluginAttempt::Status::failed);
  ASSERT_NE(attempt_for(r, "changedabi"), nullptr);
  EXPECT_EQ(attempt_for(r, "changedabi")->status, PluginAttempt::Status::failed);
  for (const std::string& built : built_plugin_names()) {
    const PluginAttempt* a = attempt_for(r, built);
    ASSERT_NE(a, nullptr) << built;
    EXPECT_EQ(a->status, PluginAttempt::Status::not_found) << built;
  }
  // Each name once, whatever the order of discovery.
  for (const PluginAttempt& a : r.plugin_report()) {
    int seen = 0;
    for (const PluginAttempt& b : r.plugin_report()) seen += a.name == b.name ? 1 : 0;
    EXPECT_EQ(seen, 1) << a.name;
  }
}

TEST(Registry, RefusesASecondRegWithTheSameName) {
  Registry r = with_plugins({"good", "twin"});
  EXPECT_EQ(attempt_for(r, "good")->status, PluginAttempt::Status::loaded);
  const PluginAttempt* twin = attempt_for(r, "twin");
  ASSERT_NE(twin, nullptr);
  EXPECT_EQ(twin->status, PluginAttempt::Status::failed);
  EXPECT_NE(twin->reason.find("already registered"), std::string::npos) << twin->reason;
  EXPECT_EQ(r.devices().size(), 2u);
}

TEST(Registry, BackendPathEnvironmentIsSearchedFirst) {
  ::setenv("BK_BACKEND_PATH", (kDir + ":/also-missing").c_str(), 1);
  Registry r(RegistryOptions{.load_plugins = true, .search_path = {}, .plugin_names = {"good"}});
  ::unsetenv("BK_BACKEND_PATH");
  const PluginAttempt* a = attempt_for(r, "good");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->status, PluginAttempt::Status::loaded) << a->reason;
}

TEST(Registry, GlobalIsOneInstance) { EXPECT_EQ(&Registry::global(), &Registry::global()); }

}  // namespace
}  // namespace bk
