// SPDX-License-Identifier: MIT
#include "contracts.h"

#include <array>

namespace bk::contract {

std::span<const Contract> all_contracts() {
  static constexpr std::array<Contract, 18> kContracts{{
      {"identity", identity},
      {"describe", describe},
      {"buffer_alloc", buffer_alloc},
      {"alloc_failure", alloc_failure},
      {"placement", placement},
      {"views", views},
      {"bounds", bounds},
      {"round_trip", round_trip},
      {"copies", copies},
      {"copy_async", copy_async},
      {"stream_order_transfers", stream_order_transfers},
      {"stream_order_compute", stream_order_compute},
      {"compute_views", compute_views},
      {"compute_refuses_unsupported", compute_refuses_unsupported},
      {"events", events},
      {"timing_events", timing_events},
      {"host_buffer", host_buffer},
      {"buffer_from_host_ptr", buffer_from_host_ptr},
  }};
  return kContracts;
}

}  // namespace bk::contract
