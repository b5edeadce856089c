// SPDX-License-Identifier: MIT
#pragma once
// How `bkctl smoke` runs as one rank of a fleet job: `mpirun -n N --map-by ppr:1:node bkctl
// smoke ...` or `srun --mpi=pmix bkctl smoke ...`. Every rank checks its own node; rank 0
// gathers the reports and writes the merged one (commands/smoke/fleet.cpp).
//
// The MPI code lives in a module of its own, libbkctl-mpi.so (fleet/mpi_link.cpp, built when
// OpenMPI's development files are found: -DBK_MPI), which bkctl opens only when a launcher
// started it, so that bkctl itself needs no MPI library: a node that never runs fleet jobs
// does not need one installed.
//
// A FleetLink is used from the main thread only (MPI initialised with MPI_THREAD_FUNNELED).

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace bkctl {

// Host-to-host bandwidth and latency between the ranks (the interconnect check).
struct InterconnectResult {
  size_t bytes = 0;                 // per message
  double ring_gbps = 0;             // each rank sends to the next and receives from the previous
  double ring_latency_us = 0;       // one 8-byte message around the same ring, per hop
  double allreduce_busbw_gbps = 0;  // MPI_Allreduce of `bytes` floats' worth, as nccl-tests' bus bandwidth
  std::string error;                // why it could not be measured (a rank did not answer in time)
};

class FleetLink {
 public:
  virtual ~FleetLink() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Measures the interconnect with every rank taking part (call it while every rank is alive:
  // before the checks); gives up after `deadline_seconds`.
  virtual InterconnectResult interconnect(size_t bytes, double deadline_seconds) = 0;
  // Every rank's text reaches rank 0. On rank 0: one entry per rank (its own first), nothing
  // for a rank that sent nothing within `wait_seconds` (it died, or hangs outside the checks'
  // watchdog). On other ranks: empty, once sent.
  virtual std::vector<std::optional<std::string>> gather(const std::string& mine, double wait_seconds) = 0;
  // Ends MPI: finalizes when every rank reported; else exits the process at once with
  // `exit_code`, unfinalized, so that the launcher ends the whole job and a rank stuck elsewhere
  // cannot hang it (the report must be written by then).
  virtual void finish(bool everyone_reported, int exit_code) = 0;
};

// True when an MPI launcher started this process (OpenMPI's mpirun, PMI or PMIx under Slurm).
bool launched_by_mpi();

// Opens libbkctl-mpi.so (next to bkctl, in ../lib, or in bk's plugin directory) and joins the
// job. Throws bk::Error(not_found, exit 3) naming what is missing when the module is absent or
// does not load, bk::Error(device_error) when MPI cannot start.
std::unique_ptr<FleetLink> open_fleet_link();

}  // namespace bkctl
