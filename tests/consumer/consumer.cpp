// SPDX-License-Identifier: MIT
// A program outside bk's tree, as a user writes one: lists the devices bk finds and allocates,
// fills and reads back a buffer on each. Built three ways by run.sh (find_package, pkg-config,
// add_subdirectory); exits non-zero when a byte comes back wrong or no device is found.
#include <bk/buffer.h>
#include <bk/device.h>
#include <bk/error.h>
#include <bk/registry.h>
#include <bk/version.h>

#include <cstdio>
#include <vector>

int main() {
  constexpr size_t kBytes = size_t{1} << 20;
  const bk::Registry& registry = bk::Registry::global();
  std::printf("bk %s, devices: %zu\n", std::string(bk::kVersion).c_str(), registry.devices().size());
  int failures = registry.devices().empty() ? 1 : 0;
  for (bk::Device* device : registry.devices()) {
    try {
      const std::unique_ptr<bk::Buffer> buffer = device->buffer_type().alloc(kBytes);
      buffer->fill(0, 0x5a, kBytes);
      std::vector<unsigned char> back(kBytes);
      buffer->read(0, back.data(), kBytes);
      size_t wrong = 0;
      for (unsigned char byte : back) wrong += byte != 0x5a;
      std::printf("%s (%s): allocated %zu bytes, %zu wrong\n", device->name().c_str(),
                  device->description().c_str(), buffer->size(), wrong);
      failures += wrong != 0;
    } catch (const bk::Error& e) {
      std::printf("%s: %s\n", device->name().c_str(), e.what());
      ++failures;
    }
  }
  return failures == 0 ? 0 : 1;
}
