// SPDX-License-Identifier: MIT
// Registry::global(): the process-wide registry, put together here because this layer is the
// one that may see both the registry and the CPU device (docs/architecture.md).
#include "bk/cpu.h"
#include "bk/registry.h"

namespace bk {

Registry& Registry::global() {
  static Registry registry(RegistryOptions{.builtin_regs = {&cpu_reg()}});
  return registry;
}

}  // namespace bk
