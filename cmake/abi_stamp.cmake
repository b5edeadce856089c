# The plugin ABI stamp: a hash of the declarations in the public headers. A plugin carries the
# stamp of the headers it was compiled against (bk/plugin_api.h), and the registry refuses one
# whose stamp differs from its own: the C++ interfaces a plugin implements (Device, Buffer, ...)
# are laid out by those headers, so a mismatch would crash at the first virtual call instead of
# failing with a reason. Comments, blank lines and indentation do not count, so editing a comment
# does not orphan the plugins built before.

# bk_abi_stamp(<var> <dir>): the stamp of the headers <dir>/bk/*.h.
function(bk_abi_stamp var dir)
  file(GLOB headers ${dir}/bk/*.h)
  list(FILTER headers EXCLUDE REGEX "/abi_stamp\\.h$")
  list(SORT headers)
  set(text "")
  foreach(header IN LISTS headers)
    file(READ ${header} content)
    string(REGEX REPLACE "//[^\n]*" "" content "${content}")
    string(REGEX REPLACE "[ \t\r\n]+" " " content "${content}")
    get_filename_component(name ${header} NAME)
    string(APPEND text "${name}:${content}\n")
  endforeach()
  string(SHA256 hash "${text}")
  string(SUBSTRING ${hash} 0 16 short)
  set(${var} "bk-abi-${short}" PARENT_SCOPE)
endfunction()

# bk_write_abi_stamp(<headers dir> <output dir>): writes <output dir>/bk/abi_stamp.h for the
# headers in <headers dir>/bk, and re-runs the configure step whenever one of them changes.
function(bk_write_abi_stamp headers_dir output_dir)
  bk_abi_stamp(stamp ${headers_dir})
  file(GLOB headers ${headers_dir}/bk/*.h)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${headers})
  file(CONFIGURE OUTPUT ${output_dir}/bk/abi_stamp.h CONTENT "#pragma once
// The ABI stamp of the bk headers (cmake/abi_stamp.cmake): a hash of their declarations.
// Generated at configure time; do not edit.
#define BK_ABI_STAMP \"${stamp}\"
")
endfunction()
