// SPDX-License-Identifier: MIT
#pragma once
// A report file (--junit, --plot) that is either complete or untouched: opened before the run,
// so that a path that cannot be written fails in a second rather than after the run, written
// into a temporary file beside it, and renamed over the path only when the whole text is on
// disk. A run that fails, throws or is interrupted by SIGINT/SIGTERM leaves the path as it was
// (the temporary file is removed, by the destructor or by the signal handler). A path that
// exists and is not a regular file (/dev/stdout, a FIFO, a device) is written in place instead.
//
// Errors: bk::Error(invalid_argument, exit 2) when the directory cannot take the file;
// bk::Error(device_error, exit 5) when writing or renaming fails (a full disk). Single-threaded:
// open and commit from the command's thread.

#include <string>

namespace bkctl {

class ReportFile {
 public:
  // An empty path means no report: commit() does nothing. `option` names it in errors ("--junit").
  ReportFile(std::string path, std::string option);
  ~ReportFile();
  ReportFile(const ReportFile&) = delete;
  ReportFile& operator=(const ReportFile&) = delete;

  bool wanted() const noexcept { return !path_.empty(); }
  const std::string& path() const noexcept { return path_; }
  // Writes `text`, syncs it and renames the temporary file over the path.
  void commit(const std::string& text);

 private:
  std::string path_, option_;
  std::string target_;  // the regular file renamed over: path_ with symbolic links resolved
  std::string temp_;    // empty when writing in place
  int fd_ = -1;
};

}  // namespace bkctl
