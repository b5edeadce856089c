# The layers of libbk, and how the build enforces their order (docs/architecture.md has the table).
#
# Each layer is an OBJECT library with its own include root, a folder under the build tree that
# holds links to exactly the headers the layer owns: its public ones (include/bk/<name>.h, seen as
# "bk/<name>.h") and its internal folder (lib/<layer>, seen as "<prefix>/<file>.h"). A layer sees
# its own root and the roots of the layers it links, nothing else, so an include that points the
# wrong way (core including a scheduler header) does not compile: "No such file or directory".
# Programs above libbk (probe, plugins, bkctl) see every public header through bk_api and no
# internal one; the unit tests of a layer link the layer itself.

# bk_layer(TARGET INTERNAL <prefix> PUBLIC <header>... SOURCES <file>...)
function(bk_layer target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "INTERNAL" "PUBLIC;SOURCES")
  add_library(${target} OBJECT ${arg_SOURCES})
  set_target_properties(${target} PROPERTIES CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  target_link_libraries(${target} PRIVATE bk_warnings)
  # With -Bsymbolic-functions on libbk (lib/runtime), the compiler may inline and call exported
  # functions directly within a file, too.
  target_compile_options(${target} PRIVATE -fno-semantic-interposition)
  set(root ${PROJECT_BINARY_DIR}/layers/${target})
  file(REMOVE_RECURSE ${root})
  file(MAKE_DIRECTORY ${root}/bk)
  foreach(header IN LISTS arg_PUBLIC)
    # Generated public headers (version.h) live in the build tree.
    set(source ${PROJECT_SOURCE_DIR}/include/bk/${header})
    if(NOT EXISTS ${source})
      set(source ${BK_GENERATED_INCLUDE_DIR}/bk/${header})
    endif()
    if(NOT EXISTS ${source})
      message(FATAL_ERROR "${target}: public header bk/${header} does not exist")
    endif()
    file(CREATE_LINK ${source} ${root}/bk/${header} SYMBOLIC)
  endforeach()
  bk_internal_root(${target} ${arg_INTERNAL})
  set_property(GLOBAL APPEND PROPERTY BK_LAYER_PUBLIC_HEADERS ${arg_PUBLIC})
endfunction()

# bk_internal_root(TARGET PREFIX): the current folder's headers become visible as
# "PREFIX/<file>.h" to TARGET and to whatever links it, and to nothing else.
function(bk_internal_root target prefix)
  set(root ${PROJECT_BINARY_DIR}/layers/${target})
  get_filename_component(parent ${root}/${prefix} DIRECTORY)
  file(MAKE_DIRECTORY ${parent})
  file(REMOVE ${root}/${prefix})
  file(CREATE_LINK ${CMAKE_CURRENT_SOURCE_DIR} ${root}/${prefix} SYMBOLIC)
  target_include_directories(${target} PUBLIC ${root})
endfunction()

# Every header in include/bk/ belongs to exactly one layer.
function(bk_check_public_headers)
  get_property(owned GLOBAL PROPERTY BK_LAYER_PUBLIC_HEADERS)
  file(GLOB present RELATIVE ${PROJECT_SOURCE_DIR}/include/bk ${PROJECT_SOURCE_DIR}/include/bk/*.h)
  foreach(header IN LISTS present)
    list(FIND owned ${header} index)
    if(index EQUAL -1)
      message(FATAL_ERROR "include/bk/${header} belongs to no layer: list it in its layer's bk_layer(PUBLIC ...)")
    endif()
  endforeach()
  list(LENGTH owned n_owned)
  list(REMOVE_DUPLICATES owned)
  list(LENGTH owned n_unique)
  if(NOT n_owned EQUAL n_unique)
    message(FATAL_ERROR "a public header is listed by two layers: ${owned}")
  endif()
endfunction()
