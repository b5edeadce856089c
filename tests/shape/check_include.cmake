# One layer-table case: compiles `#include "HEADER"` with INCLUDES (the include paths a layer's
# own sources get) and checks the outcome: EXPECT=ok must compile, EXPECT=refused must fail
# because the header is not found (not for any other reason).
#   cmake -DCXX=... -DINCLUDES=a;b -DHEADER=sched/passes.h -DEXPECT=refused -DWORK=dir -P check_include.cmake
file(MAKE_DIRECTORY ${WORK})
file(WRITE ${WORK}/include_probe.cpp "#include \"${HEADER}\"\n")
set(flags -std=c++20 -fsyntax-only)
foreach(dir IN LISTS INCLUDES)
  list(APPEND flags -I${dir})
endforeach()
execute_process(COMMAND ${CXX} ${flags} ${WORK}/include_probe.cpp RESULT_VARIABLE rc ERROR_VARIABLE err)
if(EXPECT STREQUAL "ok")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "\"${HEADER}\" should be visible here, but it did not compile:\n${err}")
  endif()
elseif(rc EQUAL 0)
  message(FATAL_ERROR "\"${HEADER}\" compiled, but this layer must not see it (docs/architecture.md)")
elseif(NOT err MATCHES "${HEADER}: No such file")
  message(FATAL_ERROR "\"${HEADER}\" failed for another reason than not being visible:\n${err}")
endif()
