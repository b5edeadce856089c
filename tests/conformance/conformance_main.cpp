// SPDX-License-Identifier: MIT
// The conformance suite: every case of all_cases() on every device of the registry, registered
// at start-up as Conformance/<device>.<case> (device names are not written anywhere here, so a
// plugin's devices join by being present). Unsupported cases and declared known failures are
// reported as skipped, with the reason; a known failure that passes fails.
//
//   bk_conformance --gtest_filter='Conformance/CPU.mul_mat_*'
//   BK_CONFORMANCE_SEED=1234 bk_conformance ...   # replay the inputs of a failed run
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <exception>
#include <map>
#include <memory>
#include <set>

#include "bk/registry.h"
#include "cases.h"
#include "runner.h"

namespace bk::conformance {
namespace {

// One stream per device, created on first use and kept for the whole run (creating a GPU
// context per case would dominate the run time).
Backend& backend_for(Device& device) {
  static std::map<Device*, std::unique_ptr<Backend>> backends;
  auto& slot = backends[&device];
  if (!slot) slot = device.init_backend();
  return *slot;
}

class CaseTest : public testing::Test {
 public:
  CaseTest(Device& device, const Case& c) : device_(&device), case_(&c) {}

  void TestBody() override {
    const Outcome o = run_case(*device_, backend_for(*device_), *case_, run_seed());
    switch (o.verdict) {
      case Verdict::passed:
        return;
      case Verdict::unsupported:
      case Verdict::expected_failure:
        GTEST_SKIP() << verdict_name(o.verdict) << ": " << o.message;
      case Verdict::failed:
      case Verdict::unexpected_pass:
        FAIL() << verdict_name(o.verdict) << ": " << o.message;
    }
  }

 private:
  Device* device_;
  const Case* case_;
};

// A device's known failures must name real cases, or a typo would silently hide nothing.
class KnownFailuresTest : public testing::Test {
 public:
  explicit KnownFailuresTest(Device& device) : device_(&device) {}

  void TestBody() override {
    std::set<std::string> names;
    for (const Case& c : all_cases()) names.insert(c.name);
    for (const KnownFailure& k : device_->known_conformance_failures()) {
      EXPECT_TRUE(names.contains(k.case_name))
          << device_->name() << " declares a known failure for '" << k.case_name << "', which is not a case";
      EXPECT_FALSE(k.reason.empty()) << device_->name() << ": known failure '" << k.case_name
                                     << "' has no reason";
    }
  }

 private:
  Device* device_;
};

// gtest names may hold letters, digits and '_' only.
std::string test_name(const std::string& s) {
  std::string out = s;
  for (char& ch : out) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return out;
}

void register_device(Device& device) {
  const std::string suite = "Conformance/" + test_name(device.name());
  testing::RegisterTest(suite.c_str(), "known_failures_are_cases", nullptr, nullptr, __FILE__, __LINE__,
                        [&device]() -> testing::Test* { return new KnownFailuresTest(device); });
  for (const Case& c : all_cases()) {
    testing::RegisterTest(suite.c_str(), test_name(c.name).c_str(), nullptr, nullptr, __FILE__, __LINE__,
                          [&device, &c]() -> testing::Test* { return new CaseTest(device, c); });
  }
}

}  // namespace
}  // namespace bk::conformance

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  try {
    for (bk::Device* device : bk::Registry::global().devices()) bk::conformance::register_device(*device);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bk_conformance: cannot enumerate devices: %s\n", e.what());
    return 2;
  }
  return RUN_ALL_TESTS();
}
