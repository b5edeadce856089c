// SPDX-License-Identifier: MIT
// libbkctl-mpi.so: FleetLink over MPI (fleet_link.h says why this is a module of its own).
//
// Nothing here may hang the job on a rank that died or hangs: rank 0 receives with nonblocking
// calls polled against a deadline, the interconnect check runs nonblocking operations polled
// the same way, and finish() leaves unfinalized when a rank never reported.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "fleet/fleet_link.h"

namespace bkctl {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kLengthTag = 1;
constexpr int kReportTag = 2;
constexpr int kRingTag = 3;

// Polls the requests until all completed or the deadline passed; true when all completed. It
// spins for the first milliseconds (a latency measured through a sleep would be the sleep's),
// then sleeps between polls.
bool wait_until(std::vector<MPI_Request>& requests, Clock::time_point deadline) {
  const Clock::time_point spin_until = Clock::now() + std::chrono::milliseconds(20);
  while (true) {
    int done = 0;
    MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE);
    if (done != 0) return true;
    const Clock::time_point now = Clock::now();
    if (now >= deadline) return false;
    if (now < spin_until) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
}

Clock::time_point after(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

class MpiLink final : public FleetLink {
 public:
  MpiLink() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  InterconnectResult interconnect(size_t bytes, double deadline_seconds) override {
    InterconnectResult result;
    result.bytes = bytes;
    if (size_ < 2) return result;
    const Clock::time_point deadline = after(deadline_seconds);
    const std::optional<double> ring = ring_seconds(bytes, deadline);
    const std::optional<double> lap = hop_seconds(deadline);
    std::optional<double> reduce;
    std::string wrong_sum;
    if (ring && lap) reduce = allreduce_seconds(bytes, deadline, wrong_sum);
    if (!ring || !lap || !reduce) {
      result.error =
          "a rank did not answer within " + std::to_string(static_cast<int>(deadline_seconds)) + " s";
      return result;
    }
    result.ring_gbps = static_cast<double>(bytes) / *ring / 1e9;
    result.ring_latency_us = *lap * 1e6;
    // nccl-tests' bus bandwidth: bytes / time * 2 (n - 1) / n.
    result.allreduce_busbw_gbps = static_cast<double>(bytes) / *reduce / 1e9 * 2.0 * (size_ - 1) / size_;
    result.error = wrong_sum;
    return result;
  }

  std::vector<std::optional<std::string>> gather(const std::string& mine, double wait_seconds) override {
    if (rank_ != 0) {
      uint64_t length = mine.size();
      MPI_Send(&length, 1, MPI_UINT64_T, 0, kLengthTag, MPI_COMM_WORLD);
      MPI_Send(mine.data(), static_cast<int>(mine.size()), MPI_CHAR, 0, kReportTag, MPI_COMM_WORLD);
      return {};
    }
    std::vector<std::optional<std::string>> reports(static_cast<size_t>(size_));
    reports[0] = mine;
    std::vector<uint64_t> lengths(static_cast<size_t>(size_));
    std::vector<MPI_Request> length_requests(static_cast<size_t>(size_), MPI_REQUEST_NULL);
    std::vector<MPI_Request> report_requests(static_cast<size_t>(size_), MPI_REQUEST_NULL);
    std::vector<std::string> texts(static_cast<size_t>(size_));
    // Per rank: 0 waiting for the length, 1 for the text, 2 done.
    std::vector<int> state(static_cast<size_t>(size_), 0);
    for (int r = 1; r < size_; ++r) {
      MPI_Irecv(&lengths[r], 1, MPI_UINT64_T, r, kLengthTag, MPI_COMM_WORLD, &length_requests[r]);
    }
    const Clock::time_point deadline = after(wait_seconds);
    for (int pending = size_ - 1; pending > 0 && Clock::now() < deadline;) {
      for (int r = 1; r < size_; ++r) {
        int done = 0;
        if (state[r] == 0) {
          MPI_Test(&length_requests[r], &done, MPI_STATUS_IGNORE);
          if (done == 0) continue;
          texts[r].resize(lengths[r]);
          MPI_Irecv(texts[r].data(), static_cast<int>(lengths[r]), MPI_CHAR, r, kReportTag, MPI_COMM_WORLD,
                    &report_requests[r]);
          state[r] = 1;
        }
        if (state[r] == 1) {
          MPI_Test(&report_requests[r], &done, MPI_STATUS_IGNORE);
          if (done == 0) continue;
          reports[r] = std::move(texts[r]);
          state[r] = 2;
          --pending;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return reports;
  }

  void finish(bool everyone_reported, int exit_code) override {
    if (everyone_reported) {
      MPI_Finalize();
    } else {
      // Leaving without MPI_Finalize makes the launcher end the job (the missing rank too) and
      // exit with this rank's status. Not MPI_Abort: under `mpirun --enable-recovery` OpenMPI
      // then exits 0 whatever the code.
      std::fflush(nullptr);
      std::_Exit(exit_code);
    }
  }

 private:
  static constexpr int kRounds = 5;  // bandwidth: the mean of a few rounds
  static constexpr int kLaps = 20;   // latency: laps of a token round the ring

  int next() const { return (rank_ + 1) % size_; }
  int previous() const { return (rank_ + size_ - 1) % size_; }

  // Seconds of one round in which every rank sends `bytes` to the next while receiving from the
  // previous; nothing past the deadline.
  std::optional<double> ring_seconds(size_t bytes, Clock::time_point deadline) {
    std::vector<char> out(bytes, static_cast<char>(rank_)), in(bytes);
    const Clock::time_point start = Clock::now();
    for (int round = 0; round < kRounds; ++round) {
      std::vector<MPI_Request> requests(2);
      MPI_Irecv(in.data(), static_cast<int>(bytes), MPI_BYTE, previous(), kRingTag, MPI_COMM_WORLD,
                &requests[0]);
      MPI_Isend(out.data(), static_cast<int>(bytes), MPI_BYTE, next(), kRingTag, MPI_COMM_WORLD,
                &requests[1]);
      if (!wait_until(requests, deadline)) return std::nullopt;
    }
    return std::chrono::duration<double>(Clock::now() - start).count() / kRounds;
  }

  // One completed request or the deadline.
  static bool one(MPI_Request request, Clock::time_point deadline) {
    std::vector<MPI_Request> requests{request};
    return wait_until(requests, deadline);
  }

  // Seconds per hop of an 8-byte token that rank 0 sends round the ring.
  std::optional<double> hop_seconds(Clock::time_point deadline) {
    uint64_t token = 0;
    const Clock::time_point start = Clock::now();
    for (int lap = 0; lap < kLaps; ++lap) {
      MPI_Request request = MPI_REQUEST_NULL;
      if (rank_ != 0) {
        MPI_Irecv(&token, 1, MPI_UINT64_T, previous(), kRingTag, MPI_COMM_WORLD, &request);
        if (!one(request, deadline)) return std::nullopt;
        ++token;
      }
      MPI_Isend(&token, 1, MPI_UINT64_T, next(), kRingTag, MPI_COMM_WORLD, &request);
      if (!one(request, deadline)) return std::nullopt;
      if (rank_ == 0) {
        MPI_Irecv(&token, 1, MPI_UINT64_T, previous(), kRingTag, MPI_COMM_WORLD, &request);
        if (!one(request, deadline)) return std::nullopt;
      }
    }
    return std::chrono::duration<double>(Clock::now() - start).count() / kLaps / size_;
  }

  // Seconds of one MPI_Allreduce of `bytes` of floats, each rank adding 1; `wrong` says so when
  // the sum is not the number of ranks.
  std::optional<double> allreduce_seconds(size_t bytes, Clock::time_point deadline, std::string& wrong) {
    const size_t count = std::max<size_t>(1, bytes / sizeof(float));
    std::vector<float> send(count, 1.0f), receive(count);
    const Clock::time_point start = Clock::now();
    for (int round = 0; round < kRounds; ++round) {
      MPI_Request request = MPI_REQUEST_NULL;
      MPI_Iallreduce(send.data(), receive.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD,
                     &request);
      if (!one(request, deadline)) return std::nullopt;
    }
    if (receive.front() != static_cast<float>(size_)) {
      wrong = "the allreduce's sum is " + std::to_string(receive.front()) + " where " +
              std::to_string(size_) + " was expected";
    }
    return std::chrono::duration<double>(Clock::now() - start).count() / kRounds;
  }

  int rank_ = 0;
  int size_ = 1;
};

}  // namespace
}  // namespace bkctl

extern "C" __attribute__((visibility("default"))) bkctl::FleetLink* bkctl_mpi_link_open(char* error,
                                                                                        size_t size) {
  int provided = 0;
  if (const int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided); rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING] = {};
    int length = 0;
    MPI_Error_string(rc, text, &length);
    std::snprintf(error, size, "MPI_Init_thread: %s", text);
    return nullptr;
  }
  // Errors come back as codes, never as an abort from inside a call.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  return new bkctl::MpiLink();
}
