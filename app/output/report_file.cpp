// SPDX-License-Identifier: MIT
#include "output/report_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "bk/error.h"

namespace bkctl {
namespace {

// Temporary files the signal handler removes: a fixed table of C strings, because a handler may
// call only async-signal-safe functions (unlink, signal, raise) and must not allocate.
constexpr size_t kMaxPending = 8;
std::array<std::atomic<const char*>, kMaxPending> g_pending{};

void remove_pending_and_reraise(int signal_number) {
  for (std::atomic<const char*>& slot : g_pending) {
    if (const char* path = slot.load()) ::unlink(path);
  }
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

void track(const char* path) {
  static const bool installed = [] {
    std::signal(SIGINT, remove_pending_and_reraise);
    std::signal(SIGTERM, remove_pending_and_reraise);
    return true;
  }();
  (void)installed;
  for (std::atomic<const char*>& slot : g_pending) {
    const char* empty = nullptr;
    if (slot.compare_exchange_strong(empty, path)) return;
  }
}

void untrack(const char* path) {
  for (std::atomic<const char*>& slot : g_pending) {
    const char* expected = path;
    slot.compare_exchange_strong(expected, nullptr);
  }
}

std::string reason(int error) { return std::strerror(error); }

}  // namespace

ReportFile::ReportFile(std::string path, std::string option)
    : path_(std::move(path)), option_(std::move(option)) {
  if (path_.empty()) return;
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path_, ec);
  if (std::filesystem::is_directory(status)) {
    throw bk::Error(bk::ErrorCode::invalid_argument,
                    fmt::format("{} '{}' is a directory: give a file name", option_, path_));
  }
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    // A device, FIFO or /dev/stdout: written in place (renaming over it would replace the node).
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) {
      const int error = errno;
      throw bk::Error(bk::ErrorCode::invalid_argument,
                      fmt::format("cannot write {} '{}': {}", option_, path_, reason(error)));
    }
    return;
  }
  // Beside the file a symbolic link points to, so that the rename replaces the file, not the link.
  target_ = std::filesystem::weakly_canonical(path_, ec).string();
  if (ec || target_.empty()) target_ = path_;
  temp_ = target_ + ".tmp-XXXXXX";
  // Tracked before it exists: mkstemp writes the name into this very buffer before it creates
  // the file, so a signal at any point after creation finds the file's name to remove.
  track(temp_.c_str());
  fd_ = ::mkstemp(temp_.data());
  if (fd_ < 0) {
    const int error = errno;
    untrack(temp_.c_str());
    temp_.clear();
    throw bk::Error(bk::ErrorCode::invalid_argument,
                    fmt::format("cannot write {} '{}': {}; check that its directory exists and is writable",
                                option_, path_, reason(error)));
  }
}

ReportFile::~ReportFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!temp_.empty()) {
    untrack(temp_.c_str());
    ::unlink(temp_.c_str());
  }
}

void ReportFile::commit(const std::string& text) {
  if (path_.empty()) return;
  const auto fail = [&](const char* what) {
    const int error = errno;
    throw bk::Error(bk::ErrorCode::device_error,
                    fmt::format("could not write {} '{}' ({}: {}){}", option_, path_, what, reason(error),
                                temp_.empty() ? "" : "; the file was left as it was"));
  };
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("write");
    done += static_cast<size_t>(n);
  }
  if (temp_.empty()) {  // written in place
    const int closed = ::close(fd_);
    fd_ = -1;
    if (closed != 0) fail("close");
    return;
  }
  // mkstemp creates the file 0600; a report is as readable as any file the user creates.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  if (::fchmod(fd_, 0666 & ~mask) != 0 || ::fsync(fd_) != 0) fail("sync");
  if (::close(fd_) != 0) {
    fd_ = -1;
    fail("close");
  }
  fd_ = -1;
  if (::rename(temp_.c_str(), target_.c_str()) != 0) fail("rename");
  untrack(temp_.c_str());
  temp_.clear();
}

}  // namespace bkctl
