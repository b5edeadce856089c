// SPDX-License-Identifier: MIT
// `bkctl alloc`: can this device really give me that memory? Allocates --count buffers of
// --size bytes at once, writes a pattern into each, reads it back, verifies it, frees them all.

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bk/error.h"
#include "bk/registry.h"
#include "bk/units.h"
#include "bk/version.h"
#include "command.h"
#include "commands/alloc/check.h"
#include "exit_codes.h"
#include "option_checks.h"
#include "output/format.h"
#include "output/json_out.h"
#include "output/table.h"
#include "output/term.h"
#include "registry_within.h"

namespace bkctl {
namespace {

constexpr std::string_view kAllocSchema = "bk.alloc/v1";

struct AllocOptions {
  std::string device;
  std::string size;
  size_t count = 1;
  bool json = false;
  std::string timeout = "60s";
};

struct BufferReport {
  size_t bytes = 0;
  double alloc_seconds = 0;
  double write_seconds = 0;
  VerifyResult verify;
};

size_t parse_size_option(const std::string& text) {
  const std::optional<size_t> size = bk::parse_size(text);
  if (!size) {
    throw bk::Error(
        bk::ErrorCode::invalid_argument,
        fmt::format("invalid --size '{}': expected a whole number of bytes such as 4096, 64MiB, 2GiB or 1.5G",
                    text));
  }
  if (*size == 0) {
    throw bk::Error(bk::ErrorCode::invalid_argument,
                    "invalid --size '" + text + "': must be at least 1 byte");
  }
  return *size;
}

// Refuses up front what the device says it cannot have, rather than letting the OS or driver
// fail (or the machine swap) half way through.
void check_fits(const bk::Device& device, size_t size, size_t count) {
  const bk::MemoryInfo memory = device.memory();
  const bool overflows = size > SIZE_MAX / count;
  if (!overflows && size * count <= memory.free) return;
  const std::string requested =
      count == 1 ? bk::format_bytes(size)
                 : fmt::format("{} x {} = {}", count, bk::format_bytes(size),
                               overflows ? "more than 16 EiB" : bk::format_bytes(size * count));
  const std::string advice =
      memory.free / count == 0 ? "free some memory first"
                               : fmt::format("try --size {} or less{}", format_size_arg(memory.free / count),
                                             count > 1 ? " or a smaller --count" : "");
  throw bk::Error(bk::ErrorCode::out_of_memory,
                  fmt::format("{}: cannot allocate {}: only {} of {} is free; {}", device.name(), requested,
                              bk::format_bytes(memory.free), bk::format_bytes(memory.total), advice));
}

void progress(const char* step, size_t index, size_t count, size_t bytes) {
  // Progress is for people watching a terminal; pipes and CI logs get the result only.
  if (!is_terminal(stderr)) return;
  std::fprintf(stderr, "bkctl: %s buffer %zu/%zu (%s)\n", step, index + 1, count,
               bk::format_bytes(bytes).c_str());
}

std::vector<BufferReport> run_check(bk::Device& device, size_t size, size_t count) {
  using Clock = std::chrono::steady_clock;
  std::vector<BufferReport> reports(count);
  std::vector<std::unique_ptr<bk::Buffer>> buffers;
  buffers.reserve(count);
  // All buffers are held at once: the question is whether count x size fits together.
  for (size_t i = 0; i < count; ++i) {
    progress("allocating", i, count, size);
    const Clock::time_point start = Clock::now();
    buffers.push_back(device.buffer_type().alloc(size));
    reports[i].alloc_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    reports[i].bytes = buffers.back()->size();
  }
  PatternStaging staging(size);
  for (size_t i = 0; i < count; ++i) {
    progress("writing", i, count, size);
    reports[i].write_seconds = write_pattern(*buffers[i], i, staging);
  }
  for (size_t i = 0; i < count; ++i) {
    progress("verifying", i, count, size);
    reports[i].verify = verify_pattern(*buffers[i], i, staging);
  }
  return reports;
}

BufferReport total_of(const std::vector<BufferReport>& reports) {
  BufferReport total;
  for (const BufferReport& report : reports) {
    total.bytes += report.bytes;
    total.alloc_seconds += report.alloc_seconds;
    total.write_seconds += report.write_seconds;
    total.verify.read_seconds += report.verify.read_seconds;
    total.verify.mismatches += report.verify.mismatches;
  }
  return total;
}

ojson timing_json(const BufferReport& report) {
  ojson out = ojson::object();
  out["bytes"] = report.bytes;
  out["alloc_seconds"] = report.alloc_seconds;
  out["write_seconds"] = report.write_seconds;
  out["read_seconds"] = report.verify.read_seconds;
  out["write_gbps"] = gbps(report.bytes, report.write_seconds);
  out["read_gbps"] = gbps(report.bytes, report.verify.read_seconds);
  return out;
}

ojson buffer_json(size_t index, const BufferReport& report) {
  ojson out = ojson::object();
  out["index"] = index;
  out.update(timing_json(report));
  out["verified"] = report.verify.ok();
  out["mismatches"] = report.verify.mismatches;
  const auto& first = report.verify.first;
  out["first_mismatch_offset"] = first ? ojson(first->offset) : ojson(nullptr);
  out["first_mismatch_expected"] = first ? ojson(format_hex64(first->expected)) : ojson(nullptr);
  out["first_mismatch_got"] = first ? ojson(format_hex64(first->got)) : ojson(nullptr);
  return out;
}

ojson alloc_document(const bk::Device& device, size_t size, const std::vector<BufferReport>& reports) {
  ojson document = json_document(kAllocSchema);
  document["bkctl_version"] = bk::kVersion;
  document["device"] = ojson{{"name", device.name()}, {"description", device.description()}};
  document["size"] = size;
  document["count"] = reports.size();
  ojson buffers = ojson::array();
  for (size_t i = 0; i < reports.size(); ++i) buffers.push_back(buffer_json(i, reports[i]));
  document["buffers"] = std::move(buffers);
  const BufferReport total = total_of(reports);
  ojson total_json = timing_json(total);
  total_json["mismatches"] = total.verify.mismatches;
  document["total"] = std::move(total_json);
  document["ok"] = total.verify.mismatches == 0;
  return document;
}

std::vector<TableCell> report_row(std::string label, const BufferReport& report) {
  const TableCell verified =
      report.verify.ok() ? TableCell("ok", Tone::good) : TableCell("FAILED", Tone::bad);
  return {std::move(label),
          bk::format_bytes(report.bytes),
          format_ms(report.alloc_seconds),
          format_gbps(report.bytes, report.write_seconds),
          format_gbps(report.bytes, report.verify.read_seconds),
          verified};
}

std::string mismatch_line(const bk::Device& device, size_t index, const BufferReport& report) {
  const PatternMismatch& first = *report.verify.first;
  return fmt::format(
      "{} buffer {}: {} of {} words read back wrong; first at byte offset {}: expected {}, got {}",
      device.name(), index, report.verify.mismatches, (report.bytes + 7) / 8, first.offset,
      format_hex64(first.expected), format_hex64(first.got));
}

void print_human(const bk::Device& device, size_t size, const std::vector<BufferReport>& reports) {
  const TermStyle style = term_style_for(stdout);
  std::string out = fmt::format("{} ({}): {} x {}\n\n", device.name(), device.description(), reports.size(),
                                bk::format_bytes(size));
  Table table({{"buffer", Align::right},
               {"size", Align::right},
               {"alloc ms", Align::right},
               {"write GB/s", Align::right},
               {"read GB/s", Align::right},
               {"verified"}});
  for (size_t i = 0; i < reports.size(); ++i) table.add_row(report_row(std::to_string(i), reports[i]));
  if (reports.size() > 1) table.add_row(report_row("total", total_of(reports)));
  out += table.render(style);
  for (size_t i = 0; i < reports.size(); ++i) {
    if (!reports[i].verify.ok())
      out += "\n" + style.paint(mismatch_line(device, i, reports[i]), Tone::bad) + "\n";
  }
  std::fputs(out.c_str(), stdout);
}

int run_alloc(const AllocOptions& options) {
  const size_t size = parse_size_option(options.size);
  bk::Device& device = registry_within(options.timeout).device(options.device);
  check_fits(device, size, options.count);
  const std::vector<BufferReport> reports = run_check(device, size, options.count);
  if (options.json) {
    print_json(alloc_document(device, size, reports));
  } else {
    print_human(device, size, reports);
  }
  const BufferReport total = total_of(reports);
  if (total.verify.mismatches == 0) return kExitOk;
  std::fflush(stdout);
  std::fprintf(stderr,
               "bkctl: check failed: %zu words read back wrong on %s; the memory or its driver is faulty\n",
               total.verify.mismatches, device.name().c_str());
  return kExitCheckFailed;
}

}  // namespace

Command add_alloc_command(CLI::App& parent) {
  auto options = std::make_shared<AllocOptions>();
  CLI::App* app =
      parent.add_subcommand("alloc", "Allocate device memory, write and verify a pattern, free it");
  app->add_option("-d,--device", options->device,
                  "Device name, as `bkctl devices` lists it (case-insensitive)")
      ->check(names_a_device())
      ->type_name("DEV")
      ->required();
  app->add_option("-s,--size", options->size, "Bytes per buffer: 4096, 64MiB, 2GiB, 1.5G, 500MB")
      ->type_name("SIZE")
      ->required();
  app->add_option("-n,--count", options->count, "Number of buffers held at the same time (default 1)")
      ->type_name("N")
      ->check(CLI::Range(size_t{1}, size_t{1} << 20).description(""));
  app->add_flag("--json", options->json, "Print JSON (schema bk.alloc/v1) instead of a table");
  app->add_option("--timeout", options->timeout, "Give up finding the devices after this long (exit 5)")
      ->type_name("DUR")
      ->capture_default_str();
  app->footer(
      "Every buffer is allocated first (they must fit together), then filled with a pattern\n"
      "that differs at every 64-bit word, read back and compared. GB/s counts only the\n"
      "transfers (decimal GB). Exit 1 when a word reads back wrong, 4 when the memory is not there.\n"
      "SIZE: binary units K/Ki/KiB, M/Mi/MiB, G/Gi/GiB, T/Ti/TiB; decimal kB, MB, GB, TB.\n"
      "\n"
      "Examples:\n"
      "  bkctl alloc --device CPU --size 64MiB\n"
      "  bkctl alloc --device vulkan0 --size 2GiB --count 4\n"
      "  bkctl alloc -d CPU -s 1.5G --json");
  return {app, [options] { return run_alloc(*options); }};
}

}  // namespace bkctl
