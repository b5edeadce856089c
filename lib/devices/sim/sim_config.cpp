// SPDX-License-Identifier: MIT
#include "devices/sim/sim_config.h"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <charconv>

#include "bk/error.h"
#include "bk/strings.h"
#include "bk/units.h"

namespace bk {
namespace {

struct Where {
  std::string_view device;
  std::string_view key;
};

[[noreturn]] void bad(const Where& at, const std::string& what) {
  throw Error(ErrorCode::invalid_argument,
              fmt::format("BK_SIM_DEVICES: device '{}', key '{}': {} (run with a valid entry such as "
                          "'gpu0:type=gpu,ops=mul_mat+add,mem=8GiB')",
                          at.device, at.key, what));
}

std::vector<std::string> list_items(std::string_view value) {
  std::vector<std::string> items;
  for (const std::string& item : split(value, '+')) {
    if (!trim(item).empty()) items.push_back(trim(item));
  }
  return items;
}

std::set<Op> parse_ops(const Where& at, std::string_view value, bool allow_all) {
  std::set<Op> ops;
  if (allow_all && iequals(trim(value), "all")) {
    for (int i = 1; i < kOpCount; ++i) ops.insert(static_cast<Op>(i));
    return ops;
  }
  if (iequals(trim(value), "none")) return ops;
  for (const std::string& item : list_items(value)) {
    const std::optional<Op> op = op_from_name(item);
    if (!op || *op == Op::none)
      bad(at, fmt::format("'{}' is not an op name (mul_mat, add, rms_norm, ...)", item));
    ops.insert(*op);
  }
  return ops;
}

std::set<DType> parse_types(const Where& at, std::string_view value) {
  std::set<DType> types;
  if (iequals(trim(value), "all")) {
    for (int i = 0; i < kDTypeCount; ++i) types.insert(static_cast<DType>(i));
    return types;
  }
  for (const std::string& item : list_items(value)) {
    const std::optional<DType> type = dtype_from_name(item);
    if (!type) bad(at, fmt::format("'{}' is not a dtype (f32, f16, bf16, i32)", item));
    types.insert(*type);
  }
  if (types.empty()) bad(at, "needs at least one dtype");
  return types;
}

size_t parse_bytes(const Where& at, std::string_view value) {
  const std::optional<size_t> bytes = parse_size(trim(value));
  if (!bytes || *bytes == 0) bad(at, fmt::format("'{}' is not a size such as 512MiB or 8GiB", value));
  return *bytes;
}

long long parse_count(const Where& at, std::string_view value) {
  const std::string text = trim(value);
  long long n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n < 0) {
    bad(at, fmt::format("'{}' is not a whole number >= 0", value));
  }
  return n;
}

// "2s", "500ms", "1.5" (seconds), >= 0.
double parse_seconds(const Where& at, std::string_view value) {
  std::string text = trim(value);
  double scale = 1;
  if (text.ends_with("ms")) {
    scale = 1e-3;
    text.resize(text.size() - 2);
  } else if (text.ends_with("s")) {
    text.resize(text.size() - 1);
  }
  double seconds = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !(seconds >= 0)) {
    bad(at, fmt::format("'{}' is not a duration such as 2s or 500ms", value));
  }
  return seconds * scale;
}

bool parse_bool(const Where& at, std::string_view value) {
  const std::string v = to_lower(trim(value));
  if (v == "yes" || v == "true" || v == "1" || v == "on") return true;
  if (v == "no" || v == "false" || v == "0" || v == "off") return false;
  bad(at, fmt::format("'{}' is not yes or no", value));
}

DeviceType parse_type(const Where& at, std::string_view value) {
  for (DeviceType t : {DeviceType::cpu, DeviceType::gpu, DeviceType::igpu, DeviceType::accel}) {
    if (iequals(device_type_name(t), trim(value))) return t;
  }
  bad(at, fmt::format("'{}' is not a device type (gpu, igpu, accel, cpu)", value));
}

SimFault parse_fault(const Where& at, std::string_view value) {
  for (SimFault f : {SimFault::none, SimFault::corrupt_byte, SimFault::wrong_results, SimFault::hang,
                     SimFault::alloc_fail, SimFault::hang_init}) {
    if (iequals(sim_fault_name(f), trim(value))) return f;
  }
  bad(at, fmt::format("'{}' is not a fault (none, corrupt_byte, wrong_results, hang, alloc_fail, hang_init)",
                      value));
}

using Apply = void (*)(SimDeviceConfig&, const Where&, std::string_view);

struct KeySpec {
  std::string_view key;
  std::string_view syntax;
  std::string_view help;
  Apply apply;
};

// The keys of a device entry. To add a behaviour: a field in SimDeviceConfig, a row here.
constexpr std::array<KeySpec, 15> kKeys{{
    {"type", "gpu|igpu|accel|cpu", "device type (default gpu)",
     [](SimDeviceConfig& c, const Where& at, std::string_view v) { c.type = parse_type(at, v); }},
    {"ops", "all|OP+OP", "compute ops it runs (default all)",
     [](SimDeviceConfig& c, const Where& at, std::string_view v) { c.ops = parse_ops(at, v, true); }},
    {"types", "all|T+T", "dtypes every tensor of a node it runs must have (default all)",
     [](SimDeviceConfig& c, const Where& at, std::string_view v) { c.types = parse_types(at, v); }},
    {"mem", "SIZE", "memory its buffers may hold in total (default 8GiB)",
     [](SimDeviceConfig& c, const Where& at, std::string_view v) { c.memory = parse_bytes(at, v); }},
    {"max_buffer", "SIZE", "largest single buffer (default: mem)",
     [](SimDeviceConfig& c, const Where& at, std::string_view v) { c.max_buffer = parse_bytes(at, v); }},
    {"alignment", "N", "buffer alignment in bytes, a power of two (default 64)",
     [](SimDeviceConfig& c, const Where& at, std::string_view v) {
       const long long n = parse_count(at, v);
       if (n < 1 || n > 4096 || (n & (n - 1)) != 0) bad(at, "must be a power of two from 1 to 4096");
       c.alignment = static_cast<size_t>(n);
     }},
    {"events", "yes|no", "supports events (default yes)",
     [](SimDeviceConfig& c, const Where& at, std::string_view v) { c.events = parse_bool(at, v); }},
    {"async", "yes|no", "its stream runs compute and copies on a thread of its own (default no)",
     [](SimDeviceConfig& c, const Where& at, std::string_view v) { c.async = parse_bool(at, v); }},
    {"offload", "none|OP+OP", "ops it asks for even when their weights are in host memory (default none)",
     [](SimDeviceConfig& c, const Where& at, std::string_view v) { c.offload = parse_ops(at, v, false); }},
    {"offload_min_batch", "N", "... only for nodes with at least N rows (default 32)",
     [](SimDeviceConfig& c, const Where& at, std::string_view v) {
       c.offload_min_batch = parse_count(at, v);
     }},
    {"reads", "DEV+DEV", "other devices' buffers it reads in place; CPU means host memory (default none)",
     [](SimDeviceConfig& c, const Where&, std::string_view v) { c.reads = list_items(v); }},
    {"fault", "none|corrupt_byte|wrong_results|hang|alloc_fail|hang_init",
     "injects a fault, for testing checks (default none)",
     [](SimDeviceConfig& c, const Where& at, std::string_view v) { c.fault = parse_fault(at, v); }},
    {"jitter", "N", "every other compute runs its graph N times: a noisy device (default 1)",
     [](SimDeviceConfig& c, const Where& at, std::string_view v) {
       c.jitter = parse_count(at, v);
       if (c.jitter < 1 || c.jitter > 1000) bad(at, "must be from 1 to 1000");
     }},
    {"slow", "N",
     "every compute runs its graph N times: a device N times slower than it should be (default 1)",
     [](SimDeviceConfig& c, const Where& at, std::string_view v) {
       c.slow = parse_count(at, v);
       if (c.slow < 1 || c.slow > 1000) bad(at, "must be from 1 to 1000");
     }},
    {"onset", "DUR", "fault=wrong_results|hang and slow begin once a stream has computed for DUR (default 0)",
     [](SimDeviceConfig& c, const Where& at, std::string_view v) { c.onset_seconds = parse_seconds(at, v); }},
}};

const KeySpec* find_key(std::string_view key) {
  for (const KeySpec& spec : kKeys) {
    if (iequals(spec.key, key)) return &spec;
  }
  return nullptr;
}

std::string key_names() {
  std::string names;
  for (const KeySpec& spec : kKeys) names += fmt::format("{}{}", names.empty() ? "" : ", ", spec.key);
  return names;
}

void check_name(std::string_view name, const std::vector<SimDeviceConfig>& so_far) {
  const Where at{name, "name"};
  if (name.empty()) bad(at, "a device needs a name before ':'");
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) {
      bad(at, "names use letters, digits, '_', '-' and '.' only");
    }
  }
  if (iequals(name, "CPU")) bad(at, "'CPU' is the real CPU's name; pick another");
  for (const SimDeviceConfig& other : so_far) {
    if (iequals(other.name, name)) bad(at, "the name is used twice");
  }
}

SimDeviceConfig parse_device(std::string_view entry, const std::vector<SimDeviceConfig>& so_far) {
  SimDeviceConfig config;
  config.text = trim(entry);
  for (int i = 0; i < kDTypeCount; ++i) config.types.insert(static_cast<DType>(i));
  config.ops = parse_ops({}, "all", true);
  const size_t colon = config.text.find(':');
  config.name = trim(std::string_view(config.text).substr(0, colon));
  check_name(config.name, so_far);
  const std::string fields = colon == std::string::npos ? std::string() : config.text.substr(colon + 1);
  for (const std::string& field : split(fields, ',')) {
    if (trim(field).empty()) continue;
    const size_t eq = field.find('=');
    const std::string key = trim(std::string_view(field).substr(0, eq));
    const Where at{config.name, key};
    const KeySpec* spec = find_key(key);
    if (spec == nullptr) bad(at, fmt::format("unknown key; keys are {}", key_names()));
    if (eq == std::string::npos) bad(at, fmt::format("needs a value: {}={}", spec->key, spec->syntax));
    spec->apply(config, at, std::string_view(field).substr(eq + 1));
  }
  if (config.max_buffer == 0 || config.max_buffer > config.memory) config.max_buffer = config.memory;
  return config;
}

}  // namespace

const char* sim_fault_name(SimFault fault) noexcept {
  switch (fault) {
    case SimFault::none:
      return "none";
    case SimFault::corrupt_byte:
      return "corrupt_byte";
    case SimFault::wrong_results:
      return "wrong_results";
    case SimFault::hang:
      return "hang";
    case SimFault::alloc_fail:
      return "alloc_fail";
    case SimFault::hang_init:
      return "hang_init";
  }
  return "?";
}

std::vector<SimDeviceConfig> parse_sim_config(std::string_view text) {
  std::vector<SimDeviceConfig> devices;
  for (const std::string& entry : split(text, ';')) {
    if (trim(entry).empty()) continue;
    devices.push_back(parse_device(entry, devices));
  }
  return devices;
}

std::string sim_config_help() {
  std::string out;
  for (const KeySpec& spec : kKeys) {
    out += fmt::format("  {}={}  {}\n", spec.key, spec.syntax, spec.help);
  }
  return out;
}

}  // namespace bk
