# Warnings are errors in our code (not in third-party headers, which come in as SYSTEM).
add_library(bk_warnings INTERFACE)
target_compile_options(bk_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion -Wnon-virtual-dtor
  -Wold-style-cast -Woverloaded-virtual -Wimplicit-fallthrough
  # Designated initializers rely on default member initializers; this warning fights them.
  -Wno-missing-field-initializers
  # GCC 12 at -O3 reports false positives inside libstdc++ (std::string, streambuf).
  -Wno-restrict -Werror)
if(BK_SANITIZE OR BK_TSAN)
  # The sanitizers' instrumentation confuses GCC's flow analysis: false positives inside
  # libstdc++ (std::regex, std::function) that the uninstrumented build does not report.
  target_compile_options(bk_warnings INTERFACE -Wno-maybe-uninitialized)
endif()
