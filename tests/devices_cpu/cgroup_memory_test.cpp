// SPDX-License-Identifier: MIT
// cgroup memory limits (devices/cpu/cgroup_memory.h) read from cgroup trees built in a scratch
// directory, as the kernel lays them out for v1 and v2.
#include "devices/cpu/cgroup_memory.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace bk {
namespace {

namespace fs = std::filesystem;

class CgroupTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("bk-cgroup-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  void write(const std::string& relative, const std::string& text) {
    const fs::path file = root_ / relative;
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
  }
  std::string root() const { return root_.string(); }

 private:
  fs::path root_;
};

constexpr size_t kGiB = size_t{1} << 30;

TEST_F(CgroupTree, V2LimitOfTheProcessCgroup) {
  write("memory.max", "max\n");
  write("ci.slice/job-7/memory.max", std::to_string(4 * kGiB) + "\n");
  write("ci.slice/job-7/memory.current", std::to_string(kGiB) + "\n");
  const auto limit = cgroup_memory_limit("0::/ci.slice/job-7\n", root());
  ASSERT_TRUE(limit);
  EXPECT_EQ(limit->limit, 4 * kGiB);
  EXPECT_EQ(limit->headroom(), 3 * kGiB);
  EXPECT_EQ(limit->source, root() + "/ci.slice/job-7/memory.max");
}

TEST_F(CgroupTree, AnAncestorWithLessHeadroomWins) {
  write("ci.slice/memory.max", std::to_string(8 * kGiB));
  write("ci.slice/memory.current", std::to_string(7 * kGiB));  // other jobs use most of it
  write("ci.slice/job-7/memory.max", std::to_string(4 * kGiB));
  write("ci.slice/job-7/memory.current", "0");
  const auto limit = cgroup_memory_limit("0::/ci.slice/job-7\n", root());
  ASSERT_TRUE(limit);
  EXPECT_EQ(limit->headroom(), kGiB);
  EXPECT_EQ(limit->source, root() + "/ci.slice/memory.max");
}

TEST_F(CgroupTree, NoLimitAnywhereIsNullopt) {
  write("memory.max", "max\n");
  write("a/memory.max", "max\n");
  EXPECT_FALSE(cgroup_memory_limit("0::/a\n", root()));
  EXPECT_FALSE(cgroup_memory_limit("", root()));
}

TEST_F(CgroupTree, V1MemoryControllerAndItsUnlimitedValue) {
  const std::string proc = "5:devices:/\n4:cpu,memory:/docker/abc\n0::/\n";
  write("memory/docker/abc/memory.limit_in_bytes", "9223372036854771712\n");
  EXPECT_FALSE(cgroup_memory_limit(proc, root()));
  write("memory/docker/abc/memory.limit_in_bytes", std::to_string(2 * kGiB));
  write("memory/docker/abc/memory.usage_in_bytes", std::to_string(kGiB / 2));
  const auto limit = cgroup_memory_limit(proc, root());
  ASSERT_TRUE(limit);
  EXPECT_EQ(limit->limit, 2 * kGiB);
  EXPECT_EQ(limit->usage, kGiB / 2);
}

TEST_F(CgroupTree, InsideAContainerTheMountIsTheProcessCgroup) {
  // /proc/self/cgroup names the host's path, which is not under the container's mount.
  write("memory.max", std::to_string(kGiB));
  write("memory.current", std::to_string(kGiB / 4));
  const auto limit = cgroup_memory_limit("0::/system.slice/docker-123.scope\n", root());
  ASSERT_TRUE(limit);
  EXPECT_EQ(limit->limit, kGiB);
}

TEST_F(CgroupTree, MalformedFilesAreNoLimit) {
  write("memory.max", "lots\n");
  EXPECT_FALSE(cgroup_memory_limit("0::/\n", root()));
}

}  // namespace
}  // namespace bk
