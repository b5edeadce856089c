if(BK_SANITIZE)
  set(_bk_san -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  # C and C++ only: nvcc does not take these flags and device code cannot be instrumented. CUDA
  # objects linked into an instrumented plugin are simply not checked.
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${_bk_san}>")
  add_link_options("$<$<LINK_LANGUAGE:C,CXX>:${_bk_san}>")
endif()
