# What a shared library exports (nm -D): LIBRARY=libbk.so must export only the bk namespace (its
# BK_API symbols) and the C API, no probe code and no internal function; a plugin (PLUGIN=ON)
# only its entry points.
#   cmake -DNM=nm -DLIBRARY=path [-DPLUGIN=ON] -P check_exports.cmake
execute_process(COMMAND ${NM} -D --defined-only -C ${LIBRARY} OUTPUT_VARIABLE listing RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR listing STREQUAL "")
  message(FATAL_ERROR "nm -D ${LIBRARY} failed or listed nothing")
endif()
string(REPLACE "\n" ";" lines "${listing}")
set(allowed "^(bk::|typeinfo for bk::|typeinfo name for bk::|vtable for bk::|non-virtual thunk to bk::|bk_)")
if(PLUGIN)
  set(allowed "^bk_plugin_(init_v[0-9]+|abi_stamp)$")
endif()
set(symbols "")
foreach(line IN LISTS lines)
  # "<address> <type> <name>"
  string(REGEX REPLACE "^[0-9a-f]+ [A-Za-z] " "" name "${line}")
  if(name STREQUAL "" OR name STREQUAL line)
    continue()
  endif()
  list(APPEND symbols "${name}")
  if(NOT name MATCHES "${allowed}")
    message(SEND_ERROR "exported but not part of the API: ${name}")
  endif()
endforeach()
list(LENGTH symbols count)
message(STATUS "${LIBRARY}: ${count} exported symbols")
if(PLUGIN)
  return()
endif()
# No diagnostic (probe) code, and none of the internals that hidden visibility keeps in.
foreach(forbidden smoke bench_ model_graph graph_file evaluate_graph WeightStore device_details nmse
                  "bk::run_passes" "bk::SchedGraph" "bk::SchedState" "bk::GraphArenas" "bk::ArenaPlanner"
                  "bk::Scheduler::Impl" "bk::CpuDevice" "bk::load_plugin_file" "bk::ops_detail")
  foreach(name IN LISTS symbols)
    if(name MATCHES "${forbidden}")
      message(SEND_ERROR "libbk.so exports '${name}', which is not part of the runtime's API")
    endif()
  endforeach()
endforeach()
# The API itself is there.
foreach(required "bk::Registry::global()" "bk::Scheduler::Scheduler(" "bk::ops::mul_mat(" "typeinfo for bk::Error"
                 "bk::cpu_reg()" "vtable for bk::HostBuffer" "bk::GraphAllocator::alloc_graph(")
  string(FIND "${listing}" "${required}" at)
  if(at EQUAL -1)
    message(SEND_ERROR "libbk.so does not export ${required}")
  endif()
endforeach()
