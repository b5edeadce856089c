// SPDX-License-Identifier: MIT
#pragma once
// The device interfaces every device kind implements: BackendReg -> Device -> BufferType ->
// Buffer, and Backend (a stream) with Event.
//
// Ownership: a BackendReg is owned by whoever registered it (the CPU's is static; a plugin's
// lives until the process exits) and owns its Devices; a Device owns its BufferTypes. Backends,
// Buffers and Events are owned by the caller that created them and must not outlive their
// Device. Listing is cheap: constructing a BackendReg and asking a Device for its properties
// must not compile kernels or create contexts it does not need.
//
// Errors: methods throw bk::Error (see error.h); nothing aborts. Threading: a Device may be
// queried from any thread; each Backend is used by one thread at a time.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bk/api.h"
#include "bk/buffer.h"
#include "bk/dtype.h"
#include "bk/properties.h"

namespace bk {

class Backend;
class BackendReg;
class Event;
class Graph;
struct Tensor;

enum class DeviceType { cpu, gpu, igpu, accel };
BK_API const char* device_type_name(DeviceType type) noexcept;  // "cpu", "gpu", "igpu", "accel"

struct BK_API DeviceCaps {
  bool async = false;                 // set/get/copy can overlap compute on a Backend
  bool host_buffer = false;           // offers a host (pinned) buffer type
  bool buffer_from_host_ptr = false;  // can wrap caller memory as a Buffer
  bool events = false;                // supports Event
  bool event_timing = false;          // create_timing_event(): events that measure device time
};

struct BK_API MemoryInfo {
  size_t free = 0;
  size_t total = 0;
};

// The offload policy GPU devices share: a mul_mat whose activations have at least
// kOffloadMinRows rows (a prompt or a batch, not one token) does enough work per weight byte to
// be worth copying its weight from host memory to the device.
inline constexpr int64_t kOffloadMinRows = 32;
BK_API bool is_batched_mul_mat(const Tensor& node) noexcept;

// One sensor reading of Device::telemetry(): a name from the table in docs/ci.md
// ("temperature_c", "sm_clock_mhz", "power_w", "ecc_uncorrected_total", "pcie_gen", ...) and
// its value in the unit the name ends with.
struct BK_API TelemetryReading {
  std::string name;
  double value = 0;
};

// A conformance case a device declares it fails (see Device::known_conformance_failures).
struct BK_API KnownFailure {
  std::string case_name;  // "mul_mat_bf16_33x7x4097"
  std::string reason;
};

class BK_API Device {
 public:
  virtual ~Device() = default;

  virtual std::string name() const = 0;         // unique and stable: "CPU", "Vulkan0", "CUDA0"
  virtual std::string description() const = 0;  // CPU brand string or GPU model
  virtual DeviceType type() const = 0;
  virtual MemoryInfo memory() const = 0;
  virtual DeviceCaps caps() const = 0;
  // A stable identity where one exists (PCI bus id "0000:65:00.0", or a UUID); empty otherwise.
  virtual std::string stable_id() const { return {}; }
  // True for devices that exist only in software for testing (labelled "simulated").
  virtual bool is_simulated() const { return false; }
  virtual BackendReg& reg() const = 0;

  // Kind-specific properties for `bkctl devices --verbose` and --json (topology, ISA features,
  // driver, heaps...); may be slower than the other getters. Default: none.
  virtual void describe(Properties& out) const;
  // The device's sensors now: temperature, clocks, power, error counters, link state, as far
  // as it has them (empty: none). Cheap enough to call every second, from any thread, while
  // the device computes; never throws. Default: none.
  virtual std::vector<TelemetryReading> telemetry() const;

  virtual bool supports_op(const Tensor& node) const = 0;
  // Why supports_op(node) is false, for capability reports and skipped conformance cases; empty
  // when it is supported. The default names the op, the dtypes and this device; override it to
  // say more ("mul_mat needs w contiguous in rows").
  virtual std::string unsupported_reason(const Tensor& node) const;
  // Conformance cases (tests/conformance, by case name) this device is known to fail, and why.
  // The suite reports them as expected failures, and fails the run when one starts passing.
  virtual std::vector<KnownFailure> known_conformance_failures() const;
  virtual bool supports_buffer_type(const BufferType& type) const = 0;
  // True when the device wants this op even though its weights live in host memory (a GPU
  // that is worth the transfer for a large matmul; see is_batched_mul_mat). Default: no.
  virtual bool offload_op(const Tensor& node) const;

  virtual BufferType& buffer_type() = 0;
  // A host-visible (pinned) buffer type for fast transfers, or nullptr.
  virtual BufferType* host_buffer_type();
  // Wraps caller memory [ptr, ptr + size) without copying; the caller keeps it alive. Throws
  // Error(unsupported) unless caps().buffer_from_host_ptr, Error(invalid_argument) when ptr is
  // misaligned for this device.
  virtual std::unique_ptr<Buffer> buffer_from_host_ptr(void* ptr, size_t size);

  virtual std::unique_ptr<Backend> init_backend() = 0;
  // Throws Error(unsupported) unless caps().events.
  virtual std::unique_ptr<Event> create_event();
  // An event that also notes when the device reached its point, for Event::seconds_since. It
  // may cost more to record and to wait on than create_event()'s (CUDA), which is why
  // synchronisation uses the plain kind. Throws Error(unsupported) unless caps().event_timing.
  virtual std::unique_ptr<Event> create_timing_event();
};

// A stream (queue) on one device. Work submitted to it runs in order.
class BK_API Backend {
 public:
  virtual ~Backend() = default;

  virtual std::string name() const = 0;  // its device's name
  virtual Device& device() const = 0;

  // Asynchronous tensor transfers: may return before the copy finished; the source memory must
  // stay valid until synchronize(). Defaults are synchronous.
  virtual void set_tensor_async(Tensor& tensor, const void* src, size_t offset, size_t size);
  virtual void get_tensor_async(const Tensor& tensor, void* dst, size_t offset, size_t size);
  // Copy src (owned by src_backend's device, which may be this one) into dst on this stream;
  // false when not possible directly, and dst is then untouched. Tensors of different sizes are
  // never copied: false or Error(invalid_argument).
  virtual bool copy_tensor_async(Backend& src_backend, const Tensor& src, Tensor& dst);
  virtual void synchronize();

  // Computes every node of the graph in order. Throws Error(unsupported) naming the node when
  // a node's op or dtype is not supported, Error(device_error) when the device fails.
  virtual void compute(Graph& graph) = 0;

  // Makes this stream wait until the event has been reached (by its own stream).
  virtual void wait(Event& event);

  // The peak-arithmetic probe behind bkctl bench's roofline: runs a kernel of independent
  // multiply-add chains in `type` (F32, F16, BF16) on every compute unit the device has, sized
  // to perform about `flops` floating-point operations (a multiply-add counts two), and waits
  // for it. Returns the exact number performed, which the caller divides by its own timing.
  // Nothing is read or written outside the device's private scratch. Throws Error(unsupported)
  // with the reason where the device has no such kernel (the default) or no such arithmetic.
  virtual double run_peak_kernel(DType type, double flops);
};

class BK_API Event {
 public:
  virtual ~Event() = default;
  virtual Device& device() const = 0;
  // Marks the point in backend's stream reached so far. Throws Error(invalid_argument) when
  // backend is not a stream of this event's device.
  virtual void record(Backend& backend) = 0;
  // Blocks the calling thread until the recorded point has been reached (at once for an event
  // never recorded).
  virtual void synchronize() = 0;
  // Device seconds from `start`'s recorded point to this event's: both made by the same
  // device's create_timing_event(), recorded on one stream (start first) and reached (call
  // synchronize() first). Excludes the host's submission cost, which is the point: it is what
  // the device spent. Throws Error(unsupported) for events without timing (the default),
  // Error(invalid_argument) when either was never recorded or they belong to other devices.
  virtual double seconds_since(const Event& start) const;
};

// A family of devices: the built-in CPU, or one plugin (Vulkan, CUDA).
class BK_API BackendReg {
 public:
  virtual ~BackendReg() = default;

  virtual std::string name() const = 0;  // "CPU", "Vulkan", "CUDA"
  virtual std::vector<Device*> devices() = 0;
  // Why devices() is empty, when it is ("no Vulkan driver found", "CUDA driver not installed");
  // empty when devices were found.
  virtual std::string status() const { return {}; }
  // Optional extra entry points by name (e.g. "set_threads"); nullptr when absent.
  virtual void* proc_address(const std::string& name);
};

}  // namespace bk
