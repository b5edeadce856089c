// SPDX-License-Identifier: MIT
#include "probe/smoke_policy.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <array>
#include <charconv>
#include <cmath>

#include "bk/error.h"
#include "bk/strings.h"
#include "bk/units.h"

namespace bk {
namespace {

[[noreturn]] void bad(const std::string& message) { throw Error(ErrorCode::invalid_argument, message); }

bool compare(size_t found, const std::string& op, size_t count) {
  if (op == ">=") return found >= count;
  if (op == ">") return found > count;
  if (op == "<=") return found <= count;
  if (op == "<") return found < count;
  return found == count;
}

std::optional<DeviceType> type_named(std::string_view name) {
  for (DeviceType t : {DeviceType::cpu, DeviceType::gpu, DeviceType::igpu, DeviceType::accel}) {
    if (iequals(device_type_name(t), name)) return t;
  }
  return std::nullopt;
}

std::string family_names(const std::vector<BackendReg*>& regs) {
  std::vector<std::string> names;
  for (const BackendReg* reg : regs) names.push_back(reg->name());
  return fmt::format("{}", fmt::join(names, ", "));
}

// 0 for no match; higher is more specific.
int match_rank(const Device& device, std::string_view pattern) {
  if (iequals(pattern, device.name())) return 4;
  if (iequals(pattern, device.reg().name())) return 3;
  if (iequals(pattern, device_type_name(device.type()))) return 2;
  return pattern == "*" ? 1 : 0;
}

std::optional<double> positive_number(const nlohmann::json& entry, const char* key, std::string_view where) {
  if (!entry.contains(key)) return std::nullopt;
  const nlohmann::json& v = entry.at(key);
  if (!v.is_number() || !(v.get<double>() > 0) || !std::isfinite(v.get<double>())) {
    bad(fmt::format("{}: \"{}\" must be a number > 0, got {}", where, key, v.dump()));
  }
  return v.get<double>();
}

SmokeFloorEntry parse_floor_entry(const nlohmann::json& entry, std::string_view where) {
  static constexpr std::array<std::string_view, 4> kKeys = {"device", "matmul_f32_gflops",
                                                            "sustained_f32_gflops", "sustained_max_cv"};
  if (!entry.is_object()) bad(fmt::format("{}: each floor is an object", where));
  for (const auto& [key, value] : entry.items()) {
    if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end()) {
      bad(
          fmt::format("{}: unknown key \"{}\"; keys are device, matmul_f32_gflops, sustained_f32_gflops, "
                      "sustained_max_cv",
                      where, key));
    }
  }
  if (!entry.contains("device") || !entry["device"].is_string() ||
      entry["device"].get<std::string>().empty()) {
    bad(fmt::format("{}: \"device\" (a device name, family, type or \"*\") is required", where));
  }
  SmokeFloorEntry out;
  out.device = entry["device"].get<std::string>();
  out.floors.matmul_f32_gflops = positive_number(entry, "matmul_f32_gflops", where);
  out.floors.sustained_f32_gflops = positive_number(entry, "sustained_f32_gflops", where);
  out.floors.sustained_max_cv = positive_number(entry, "sustained_max_cv", where);
  return out;
}

InterconnectFloors parse_interconnect(const nlohmann::json& entry, std::string_view origin) {
  const std::string where = fmt::format("{}: interconnect", origin);
  if (!entry.is_object()) bad(where + " is an object");
  for (const auto& [key, value] : entry.items()) {
    if (key != "ring_gbps" && key != "allreduce_busbw_gbps") {
      bad(fmt::format("{}: unknown key \"{}\"; keys are ring_gbps, allreduce_busbw_gbps", where, key));
    }
  }
  return {positive_number(entry, "ring_gbps", where), positive_number(entry, "allreduce_busbw_gbps", where)};
}

}  // namespace

SmokeRequirement parse_requirement(std::string_view text) {
  static constexpr std::array<std::string_view, 6> kOps = {">=", "<=", "==", ">", "<", "="};
  SmokeRequirement r;
  r.text = trim(text);
  for (std::string_view op : kOps) {
    const size_t at = r.text.find(op);
    if (at == std::string::npos) continue;
    r.subject = trim(std::string_view(r.text).substr(0, at));
    r.op = op == "=" ? "==" : std::string(op);
    const std::string number = trim(std::string_view(r.text).substr(at + op.size()));
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), r.count);
    if (!r.subject.empty() && ec == std::errc() && end == number.data() + number.size() && !number.empty()) {
      return r;
    }
    break;
  }
  bad(fmt::format(
      "invalid --require '{}': expected FAMILY-OR-TYPE OP COUNT such as 'CUDA>=2', 'Vulkan>=1' or "
      "'gpu>=1' (OP is >=, >, =, <=, <)",
      text));
}

SmokeMinMemory parse_min_memory(std::string_view text) {
  SmokeMinMemory m;
  m.text = trim(text);
  const size_t eq = m.text.find('=');
  const std::optional<size_t> bytes =
      eq == std::string::npos ? std::nullopt : parse_size(trim(std::string_view(m.text).substr(eq + 1)));
  if (eq == std::string::npos || trim(std::string_view(m.text).substr(0, eq)).empty() || !bytes ||
      *bytes == 0) {
    bad(fmt::format("invalid --min-memory '{}': expected DEVICE=SIZE such as 'CUDA0=80GiB'", text));
  }
  m.device = trim(std::string_view(m.text).substr(0, eq));
  m.bytes = *bytes;
  return m;
}

SmokeVerdict evaluate_requirement(const SmokeRequirement& requirement, const std::vector<Device*>& devices,
                                  const std::vector<BackendReg*>& regs) {
  const std::optional<DeviceType> type = type_named(requirement.subject);
  const BackendReg* family = nullptr;
  for (const BackendReg* reg : regs) {
    if (iequals(reg->name(), requirement.subject)) family = reg;
  }
  SmokeVerdict v;
  std::vector<std::string> names;
  for (const Device* d : devices) {
    // A simulated device is counted only when its own family is asked for: it proves no hardware.
    const bool counts =
        family != nullptr ? &d->reg() == family : type && d->type() == *type && !d->is_simulated();
    if (!counts) continue;
    ++v.found;
    names.push_back(d->name());
  }
  v.met = compare(v.found, requirement.op, requirement.count);
  v.device_missing = !v.met && v.found < requirement.count;
  const std::string found = names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "));
  if (family == nullptr && !type) {
    v.message = fmt::format(
        "'{}' is neither a device family here ({}) nor a device type (cpu, gpu, igpu, accel): "
        "found none",
        requirement.subject, family_names(regs));
  } else {
    v.message = fmt::format("{} found: {}", bk::count_of(v.found, requirement.subject + " device"), found);
    if (v.found == 0 && family != nullptr && !family->status().empty())
      v.message += " (" + family->status() + ")";
  }
  if (!v.met) v.message = fmt::format("requirement {} not met: {}", requirement.text, v.message);
  return v;
}

SmokeVerdict evaluate_min_memory(const SmokeMinMemory& minimum, const std::vector<Device*>& devices) {
  SmokeVerdict v;
  for (const Device* d : devices) {
    if (!iequals(d->name(), minimum.device)) continue;
    v.found = d->memory().total;
    v.met = v.found >= minimum.bytes;
    v.message = fmt::format("{} reports {} of memory{} the {} required", d->name(), format_bytes(v.found),
                            v.met ? ", at least" : ", less than", format_bytes(minimum.bytes));
    return v;
  }
  v.device_missing = true;
  v.message = fmt::format("--min-memory {}: there is no device {}", minimum.text, minimum.device);
  return v;
}

SmokeFloorsFile parse_floors(std::string_view text, std::string_view origin) {
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    bad(fmt::format("{}: not valid JSON: {}", origin, e.what()));
  }
  if (!document.is_object() || document.value("schema", "") != "bk.floors/v1") {
    bad(fmt::format(
        "{}: a floors file is an object with \"schema\": \"bk.floors/v1\" (see 'bkctl schema floors')",
        origin));
  }
  if (!document.contains("floors") || !document["floors"].is_array()) {
    bad(fmt::format("{}: \"floors\" must be an array of {{\"device\": ..., \"matmul_f32_gflops\": ...}}",
                    origin));
  }
  for (const auto& [key, value] : document.items()) {
    if (key != "schema" && key != "floors" && key != "description" && key != "interconnect") {
      bad(fmt::format("{}: unknown key \"{}\"; keys are schema, description, floors, interconnect", origin,
                      key));
    }
  }
  SmokeFloorsFile file;
  for (size_t i = 0; i < document["floors"].size(); ++i) {
    file.devices.push_back(
        parse_floor_entry(document["floors"][i], fmt::format("{}: floors[{}]", origin, i)));
  }
  if (document.contains("interconnect"))
    file.interconnect = parse_interconnect(document["interconnect"], origin);
  return file;
}

SmokeFloors floors_for(const Device& device, const std::vector<SmokeFloorEntry>& entries) {
  int best = 0;
  SmokeFloors floors;
  for (const SmokeFloorEntry& entry : entries) {
    const int rank = match_rank(device, entry.device);
    if (rank > best) {
      best = rank;
      floors = entry.floors;
    }
  }
  return floors;
}

double parse_duration_seconds(std::string_view text, std::string_view option) {
  const std::string t = to_lower(trim(text));
  double scale = 1;
  std::string number = t;
  if (t.ends_with("ms")) {
    scale = 1e-3;
    number = t.substr(0, t.size() - 2);
  } else if (t.ends_with('s')) {
    number = t.substr(0, t.size() - 1);
  } else if (t.ends_with('m')) {
    scale = 60;
    number = t.substr(0, t.size() - 1);
  }
  double value = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (number.empty() || ec != std::errc() || end != number.data() + number.size() || !(value > 0) ||
      !std::isfinite(value) || value * scale > 86400) {
    bad(fmt::format(
        "invalid {} '{}': expected a duration above 0 and up to a day such as 60s, 500ms, 5m or 2.5", option,
        text));
  }
  return value * scale;
}

std::optional<double> parse_percent(std::string_view text, std::string_view option) {
  const std::string t = trim(text);
  if (!t.ends_with('%')) return std::nullopt;
  double value = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size() - 1, value);
  if (ec != std::errc() || end != t.data() + t.size() - 1 || !(value > 0) || value > 100) {
    bad(fmt::format("invalid {} '{}': expected a share above 0% and up to 100% such as 90% or 12.5%", option,
                    text));
  }
  return value / 100;
}

std::vector<SmokeStatus> parse_fail_on(std::string_view text) {
  std::vector<SmokeStatus> statuses;
  if (iequals(trim(text), "none")) return statuses;
  for (const std::string& item : split(text, ',')) {
    bool known = false;
    for (SmokeStatus s : kSmokeStatuses) {
      if (s != SmokeStatus::pass && iequals(trim(item), smoke_status_name(s))) {
        statuses.push_back(s);
        known = true;
      }
    }
    if (!known) {
      bad(
          fmt::format("invalid --fail-on '{}': '{}' is not a status; list any of fail, error, skipped, "
                      "n/a (comma-separated), or none",
                      text, trim(item)));
    }
  }
  return statuses;
}

}  // namespace bk
