// SPDX-License-Identifier: MIT
#include "fleet/fleet_link.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

#include "bk/device.h"
#include "bk/error.h"

namespace bkctl {
namespace {

namespace fs = std::filesystem;

constexpr const char* kModule = "libbkctl-mpi.so";
constexpr const char* kEntry = "bkctl_mpi_link_open";
using Entry = FleetLink* (*)(char* error, size_t size);

// Where the module may be: beside bkctl and in ../lib (a build tree), and in libbk's directory
// and its bk/ (an installation, where the device plugins are).
std::vector<fs::path> module_dirs() {
  std::vector<fs::path> dirs;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    dirs.push_back(exe.parent_path());
    dirs.push_back(exe.parent_path().parent_path() / "lib");
  }
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&bk::device_type_name), &info) != 0 && info.dli_fname != nullptr) {
    const fs::path lib = fs::canonical(info.dli_fname, ec).parent_path();
    if (!ec) {
      dirs.push_back(lib);
      dirs.push_back(lib / "bk");
    }
  }
  return dirs;
}

}  // namespace

bool launched_by_mpi() {
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"}) {
    if (std::getenv(variable) != nullptr) return true;
  }
  return false;
}

std::unique_ptr<FleetLink> open_fleet_link() {
  std::vector<std::string> tried;
  for (const fs::path& dir : module_dirs()) {
    const fs::path path = dir / kModule;
    std::error_code ec;
    if (!fs::exists(path, ec)) {
      tried.push_back(path.string());
      continue;
    }
    // The module stays loaded until the process ends, with the MPI library it brings.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      throw bk::Error(bk::ErrorCode::not_found,
                      fmt::format("started by an MPI launcher, but {} does not load: {}", path.string(),
                                  why != nullptr ? why : "unknown error"));
    }
    const auto entry = reinterpret_cast<Entry>(dlsym(handle, kEntry));
    if (entry == nullptr) {
      throw bk::Error(bk::ErrorCode::not_found,
                      fmt::format("{} has no {}: not bkctl's MPI module", path.string(), kEntry));
    }
    char error[512] = {};
    FleetLink* link = entry(error, sizeof error);
    if (link == nullptr)
      throw bk::Error(bk::ErrorCode::device_error, fmt::format("joining the MPI job failed: {}", error));
    return std::unique_ptr<FleetLink>(link);
  }
  throw bk::Error(
      bk::ErrorCode::not_found,
      fmt::format("started by an MPI launcher, but this bkctl has no MPI module ({} not found in {}); "
                  "build bk with OpenMPI (apt-get install libopenmpi-dev) or run bkctl without mpirun",
                  kModule, fmt::join(tried, ", ")));
}

}  // namespace bkctl
