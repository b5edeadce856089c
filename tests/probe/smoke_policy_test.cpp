// SPDX-License-Identifier: MIT
// The parsers and evaluation behind `bkctl smoke --require/--min-memory/--expect/--timeout/--fail-on`.
#include <gtest/gtest.h>

#include <string>

#include "bk/cpu.h"
#include "bk/error.h"
#include "probe/smoke_policy.h"

namespace bk {
namespace {

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    return e.what();
  }
  ADD_FAILURE() << "nothing was thrown";
  return {};
}

TEST(SmokePolicy, ParsesRequirements) {
  const SmokeRequirement a = parse_requirement("CUDA>=2");
  EXPECT_EQ(a.subject, "CUDA");
  EXPECT_EQ(a.op, ">=");
  EXPECT_EQ(a.count, 2u);
  const SmokeRequirement b = parse_requirement(" gpu = 1 ");
  EXPECT_EQ(b.subject, "gpu");
  EXPECT_EQ(b.op, "==");
  EXPECT_EQ(parse_requirement("Vulkan<3").op, "<");
  EXPECT_EQ(parse_requirement("Vulkan<=3").op, "<=");
  for (const char* bad : {"CUDA", ">=2", "CUDA>=", "CUDA>=two", "CUDA>=-1", "CUDA>=2x", ""}) {
    EXPECT_NE(error_of([&] { parse_requirement(bad); }).find("'CUDA>=2'"), std::string::npos) << bad;
  }
}

TEST(SmokePolicy, ParsesMinimumMemory) {
  const SmokeMinMemory m = parse_min_memory("CUDA0=80GiB");
  EXPECT_EQ(m.device, "CUDA0");
  EXPECT_EQ(m.bytes, size_t{80} << 30);
  for (const char* bad : {"CUDA0", "=8GiB", "CUDA0=", "CUDA0=lots", "CUDA0=0"}) {
    EXPECT_NE(error_of([&] { parse_min_memory(bad); }).find("--min-memory"), std::string::npos) << bad;
  }
}

TEST(SmokePolicy, EvaluatesAgainstTheDevicesThereAre) {
  BackendReg& cpu = cpu_reg();
  const std::vector<Device*> devices = cpu.devices();
  const std::vector<BackendReg*> regs = {&cpu};
  EXPECT_TRUE(evaluate_requirement(parse_requirement("CPU>=1"), devices, regs).met);
  EXPECT_TRUE(evaluate_requirement(parse_requirement("cpu=1"), devices, regs).met);
  const SmokeVerdict missing = evaluate_requirement(parse_requirement("CUDA>=1"), devices, regs);
  EXPECT_FALSE(missing.met);
  EXPECT_TRUE(missing.device_missing) << "zero devices of a required kind is a missing device";
  EXPECT_NE(missing.message.find("CUDA>=1"), std::string::npos);
  const SmokeVerdict too_many = evaluate_requirement(parse_requirement("CPU<1"), devices, regs);
  EXPECT_FALSE(too_many.met);
  EXPECT_FALSE(too_many.device_missing);
  EXPECT_TRUE(evaluate_min_memory(parse_min_memory("cpu=1"), devices).met);
  const SmokeVerdict small = evaluate_min_memory(parse_min_memory("CPU=1024TiB"), devices);
  EXPECT_FALSE(small.met);
  EXPECT_FALSE(small.device_missing);
  EXPECT_TRUE(evaluate_min_memory(parse_min_memory("CUDA0=1GiB"), devices).device_missing);
}

TEST(SmokePolicy, FloorsFileTakesTheMostSpecificEntry) {
  const SmokeFloorsFile file = parse_floors(R"({"schema": "bk.floors/v1", "description": "x", "floors": [
      {"device": "*", "matmul_f32_gflops": 1},
      {"device": "CPU", "matmul_f32_gflops": 3, "sustained_max_cv": 0.5}]})",
                                            "f.json");
  const std::vector<SmokeFloorEntry>& entries = file.devices;
  EXPECT_FALSE(file.interconnect.ring_gbps.has_value());
  ASSERT_EQ(entries.size(), 2u);
  const SmokeFloors floors = floors_for(*cpu_reg().devices().front(), entries);
  EXPECT_EQ(floors.matmul_f32_gflops, 3.0);
  EXPECT_EQ(floors.sustained_max_cv, 0.5);
  EXPECT_FALSE(floors.sustained_f32_gflops.has_value());
  EXPECT_FALSE(floors_for(*cpu_reg().devices().front(), {}).matmul_f32_gflops.has_value());
}

TEST(SmokePolicy, BadFloorsFilesNameTheFileAndTheProblem) {
  for (const auto& [text, needle] : std::vector<std::pair<std::string, std::string>>{
           {"[", "not valid JSON"},
           {R"({"floors": []})", "bk.floors/v1"},
           {R"({"schema": "bk.floors/v1"})", "\"floors\""},
           {R"({"schema": "bk.floors/v1", "floors": [], "extra": 1})", "extra"},
           {R"({"schema": "bk.floors/v1", "floors": [{"matmul_f32_gflops": 1}]})", "\"device\""},
           {R"({"schema": "bk.floors/v1", "floors": [{"device": "CPU", "gflops": 1}]})", "gflops"},
           {R"({"schema": "bk.floors/v1", "floors": [{"device": "CPU", "matmul_f32_gflops": "1"}]})", "> 0"},
       }) {
    const std::string message = error_of([&] { parse_floors(text, "floors.json"); });
    EXPECT_NE(message.find("floors.json"), std::string::npos) << message;
    EXPECT_NE(message.find(needle), std::string::npos) << message;
  }
}

TEST(SmokePolicy, ParsesDurations) {
  EXPECT_DOUBLE_EQ(parse_duration_seconds("60s", "--timeout"), 60);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("500ms", "--timeout"), 0.5);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("5m", "--timeout"), 300);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("2.5", "--timeout"), 2.5);
  for (const char* bad : {"", "0", "-1s", "abc", "1h", "s", "1e9", "nan"}) {
    EXPECT_NE(error_of([&] { parse_duration_seconds(bad, "--timeout"); }).find("--timeout"),
              std::string::npos)
        << bad;
  }
}

TEST(SmokePolicy, FloorsFileMayHoldInterconnectFloors) {
  const SmokeFloorsFile file = parse_floors(
      R"({"schema": "bk.floors/v1", "floors": [], "interconnect": {"ring_gbps": 10, "allreduce_busbw_gbps": 8}})",
      "f.json");
  EXPECT_EQ(file.interconnect.ring_gbps, 10.0);
  EXPECT_EQ(file.interconnect.allreduce_busbw_gbps, 8.0);
  EXPECT_NE(error_of([] {
              parse_floors(R"({"schema": "bk.floors/v1", "floors": [], "interconnect": {"latency": 1}})",
                           "f.json");
            }).find("f.json: interconnect: unknown key \"latency\""),
            std::string::npos);
}

TEST(SmokePolicy, ParsesPercentages) {
  EXPECT_DOUBLE_EQ(*parse_percent("90%", "--mem"), 0.9);
  EXPECT_DOUBLE_EQ(*parse_percent(" 12.5% ", "--mem"), 0.125);
  EXPECT_DOUBLE_EQ(*parse_percent("100%", "--mem"), 1.0);
  EXPECT_FALSE(parse_percent("256MiB", "--mem").has_value()) << "not a percentage: maybe a size";
  for (const char* bad : {"0%", "101%", "-5%", "x%", "%", "5 %"}) {
    const std::string message = error_of([&] { parse_percent(bad, "--max-drop"); });
    EXPECT_NE(message.find("invalid --max-drop"), std::string::npos) << bad << ": " << message;
  }
}

TEST(SmokePolicy, ParsesFailOn) {
  EXPECT_EQ(parse_fail_on("fail,error"), (std::vector<SmokeStatus>{SmokeStatus::fail, SmokeStatus::error}));
  EXPECT_EQ(parse_fail_on("skipped"), (std::vector<SmokeStatus>{SmokeStatus::skipped}));
  EXPECT_EQ(parse_fail_on("n/a, skipped"),
            (std::vector<SmokeStatus>{SmokeStatus::not_applicable, SmokeStatus::skipped}));
  EXPECT_EQ(smoke_status_name(SmokeStatus::not_applicable), "n/a");
  EXPECT_TRUE(parse_fail_on("none").empty());
  EXPECT_NE(error_of([] { parse_fail_on("fail,pass"); }).find("'pass'"), std::string::npos);
}

}  // namespace
}  // namespace bk
