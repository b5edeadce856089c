// SPDX-License-Identifier: MIT
// Identity: who the device is, as the registry, its reg and its streams say.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "bk/properties.h"
#include "bk/registry.h"
#include "bk/strings.h"
#include "contract_util.h"
#include "contracts.h"

namespace bk::contract {

void identity(Device& device) {
  const std::string name = device.name();
  ASSERT_FALSE(name.empty());
  const auto& all = Registry::global().devices();
  EXPECT_EQ(std::count_if(all.begin(), all.end(), [&](const Device* d) { return iequals(d->name(), name); }),
            1)
      << "device names are unique in the registry, ignoring case: " << Registry::global().device_names();
  EXPECT_EQ(Registry::global().find_device(to_lower(name)), &device);
  EXPECT_FALSE(device.description().empty());
  EXPECT_FALSE(std::string(device_type_name(device.type())).empty());

  const MemoryInfo mem = device.memory();
  EXPECT_GT(mem.total, 0u);
  EXPECT_LE(mem.free, mem.total);

  BackendReg& reg = device.reg();
  const std::vector<Device*> listed = reg.devices();
  EXPECT_NE(std::find(listed.begin(), listed.end(), &device), listed.end()) << "its reg lists it";
  EXPECT_EQ(reg.status(), "") << "a reg with devices has no reason for having none";

  BufferType& type = device.buffer_type();
  EXPECT_EQ(&type.device(), &device);
  EXPECT_FALSE(type.name().empty());
  EXPECT_TRUE(device.supports_buffer_type(type)) << "a device computes on its own memory";

  // A stream belongs to its device and is named after it.
  auto backend = device.init_backend();
  ASSERT_NE(backend, nullptr);
  EXPECT_EQ(&backend->device(), &device);
  EXPECT_EQ(backend->name(), name);
  backend->synchronize();  // an idle stream has nothing to wait for
}

// describe() fills properties whose to_json() is one JSON object, with the same keys each time.
void describe(Device& device) {
  Properties first;
  device.describe(first);
  std::string text;
  ASSERT_NO_THROW(text = first.to_json()) << "describe() keys disagree about the shape";
  ASSERT_TRUE(nlohmann::json::accept(text)) << text;
  EXPECT_TRUE(nlohmann::json::parse(text).is_object()) << text;
  std::set<std::string> keys;
  for (const Property& p : first.items()) {
    EXPECT_FALSE(p.key.empty());
    keys.insert(p.key);
  }
  Properties second;
  device.describe(second);
  std::set<std::string> again;
  for (const Property& p : second.items()) again.insert(p.key);
  EXPECT_EQ(keys, again) << "describe() reports the same keys each time";
}

}  // namespace bk::contract
