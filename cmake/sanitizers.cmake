if(BK_SANITIZE AND BK_TSAN)
  message(FATAL_ERROR "BK_SANITIZE and BK_TSAN cannot be combined (ASan and TSan exclude each other); "
                      "configure one build directory for each")
endif()
if(BK_SANITIZE)
  set(_bk_san -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
elseif(BK_TSAN)
  set(_bk_san -fsanitize=thread -fno-omit-frame-pointer)
endif()
if(DEFINED _bk_san)
  # C and C++ only: nvcc does not take these flags and device code cannot be instrumented. CUDA
  # objects linked into an instrumented plugin are simply not checked.
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${_bk_san}>")
  add_link_options("$<$<LINK_LANGUAGE:C,CXX>:${_bk_san}>")
endif()
