// SPDX-License-Identifier: MIT
#include "devices/sim/sim_config.h"

#include <gtest/gtest.h>

#include "bk/error.h"

namespace bk {
namespace {

std::string error_of(std::string_view text) {
  try {
    parse_sim_config(text);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    return e.what();
  }
  return "";
}

TEST(SimConfig, EmptyTextHasNoDevices) {
  EXPECT_TRUE(parse_sim_config("").empty());
  EXPECT_TRUE(parse_sim_config(" ; ;").empty());
}

TEST(SimConfig, ReadsEveryKey) {
  const auto devices = parse_sim_config(
      "gpu0:type=igpu,ops=mul_mat+add,types=f32+f16,mem=2GiB,max_buffer=256MiB,alignment=256,events=no,"
      "offload=mul_mat,offload_min_batch=8,reads=CPU+gpu1,jitter=4,slow=3,onset=1.5s;gpu1:onset=250ms");
  ASSERT_EQ(devices.size(), 2u);
  const SimDeviceConfig& c = devices[0];
  EXPECT_EQ(c.name, "gpu0");
  EXPECT_EQ(c.type, DeviceType::igpu);
  EXPECT_EQ(c.ops, (std::set<Op>{Op::mul_mat, Op::add}));
  EXPECT_EQ(c.types, (std::set<DType>{DType::F32, DType::F16}));
  EXPECT_EQ(c.memory, size_t{2} << 30);
  EXPECT_EQ(c.max_buffer, size_t{256} << 20);
  EXPECT_EQ(c.alignment, 256u);
  EXPECT_FALSE(c.events);
  EXPECT_EQ(c.offload, std::set<Op>{Op::mul_mat});
  EXPECT_EQ(c.offload_min_batch, 8);
  EXPECT_EQ(c.reads, (std::vector<std::string>{"CPU", "gpu1"}));
  EXPECT_EQ(c.jitter, 4);
  EXPECT_EQ(devices[1].jitter, 1);
  EXPECT_EQ(c.slow, 3);
  EXPECT_DOUBLE_EQ(c.onset_seconds, 1.5);
  EXPECT_EQ(devices[1].slow, 1);
  EXPECT_DOUBLE_EQ(devices[1].onset_seconds, 0.25);
}

TEST(SimConfig, DefaultsRunEveryOpInEightGiB) {
  const SimDeviceConfig c = parse_sim_config("gpu0").front();
  EXPECT_EQ(c.type, DeviceType::gpu);
  EXPECT_EQ(c.ops.size(), static_cast<size_t>(kOpCount - 1));
  EXPECT_EQ(c.types.size(), static_cast<size_t>(kDTypeCount));
  EXPECT_EQ(c.memory, size_t{8} << 30);
  EXPECT_EQ(c.max_buffer, c.memory);
  EXPECT_TRUE(c.events);
  EXPECT_TRUE(c.offload.empty());
}

TEST(SimConfig, ErrorsNameTheDeviceAndTheKey) {
  EXPECT_NE(error_of("gpu0:colour=blue").find("device 'gpu0', key 'colour': unknown key"), std::string::npos);
  EXPECT_NE(error_of("gpu0:ops=mul_mat+frobnicate").find("'frobnicate' is not an op name"),
            std::string::npos);
  EXPECT_NE(error_of("gpu0:mem=lots").find("key 'mem'"), std::string::npos);
  EXPECT_NE(error_of("gpu0:mem").find("needs a value"), std::string::npos);
  EXPECT_NE(error_of("gpu0:type=tpu").find("not a device type"), std::string::npos);
  EXPECT_NE(error_of("gpu0:alignment=3").find("power of two"), std::string::npos);
  EXPECT_NE(error_of("gpu0:jitter=0").find("from 1 to 1000"), std::string::npos);
  EXPECT_NE(error_of("gpu0:slow=0").find("from 1 to 1000"), std::string::npos);
  EXPECT_NE(error_of("gpu0:onset=soon").find("not a duration"), std::string::npos);
  EXPECT_NE(error_of("gpu0:onset=-1s").find("not a duration"), std::string::npos);
  EXPECT_NE(error_of("gpu0;gpu0").find("used twice"), std::string::npos);
  EXPECT_NE(error_of("CPU").find("real CPU"), std::string::npos);
  EXPECT_NE(error_of(":ops=add").find("needs a name"), std::string::npos);
  EXPECT_NE(error_of("g p u").find("letters, digits"), std::string::npos);
}

TEST(SimConfig, HelpListsEveryKey) {
  const std::string help = sim_config_help();
  for (const char* key : {"type=", "ops=", "types=", "mem=", "max_buffer=", "alignment=", "events=",
                          "offload=", "offload_min_batch=", "reads=", "jitter=", "slow=", "onset="}) {
    EXPECT_NE(help.find(key), std::string::npos) << key;
  }
}

}  // namespace
}  // namespace bk
