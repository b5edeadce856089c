// SPDX-License-Identifier: MIT
#include "probe/input_file.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "bk/error.h"
#include "bk/units.h"

namespace bk {
namespace {

[[noreturn]] void refuse(std::string_view what, const std::string& path, const std::string& why) {
  throw Error(ErrorCode::invalid_argument, fmt::format("cannot read {} '{}': {}", what, path, why));
}

}  // namespace

std::string read_input_file(const std::string& path, std::string_view what, size_t max_bytes) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) refuse(what, path, std::strerror(errno));
  if (S_ISDIR(info.st_mode)) refuse(what, path, "it is a directory; give a file");
  if (!S_ISREG(info.st_mode)) refuse(what, path, "it is not a regular file (a device, FIFO or socket)");
  const auto size = static_cast<size_t>(info.st_size);
  if (size > max_bytes) {
    refuse(what, path,
           fmt::format("it is {}, over the {} limit for input files", format_bytes(size),
                       format_bytes(max_bytes)));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) refuse(what, path, "it cannot be opened (check its permissions)");
  std::string text(size, '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  // A file that grew since stat() is read up to its size then; one that shrank is an error.
  if (static_cast<size_t>(in.gcount()) != size) refuse(what, path, "it changed while being read");
  return text;
}

}  // namespace bk
