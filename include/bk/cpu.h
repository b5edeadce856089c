// SPDX-License-Identifier: MIT
#pragma once
// The built-in CPU backend family: one device, "CPU". Built into libbk, registered first by the
// Registry. The reg is a process-wide static; it is created on first call, thread-safely.

#include "bk/api.h"
#include "bk/device.h"

namespace bk {

BK_API BackendReg& cpu_reg();

// What the CPU reg's proc_address("set_threads") returns: sets a CPU backend's thread count.
// Throws Error(invalid_argument) when the backend is not a CPU one or threads < 1.
using CpuSetThreadsFn = void (*)(Backend& backend, int threads);
// What proc_address("set_abort_callback") returns: see cpu_set_abort_callback (cpu_backend.h).
using CpuSetAbortCallbackFn = void (*)(Backend& backend, bool (*callback)(void* user), void* user);

}  // namespace bk
