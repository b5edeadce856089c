# bk_add_plugin(NAME ENTRY <file> SOURCES <file>... [PACKAGE <component>]): a device kind built as
# libbk-NAME.so, loaded at run time by the registry, installed in <libdir>/bk/. PACKAGE names the
# install component (cmake/install.cmake) of a plugin with dependencies of its own; by default it
# ships in libbk0. The sources form bk_NAME_impl, a static library compiled against
# the public headers only (its own are seen as "devices/NAME/<file>.h"), which the plugin and the
# kind's unit tests link; the module adds the entry point (bk/plugin_api.h). Each call appends
# NAME to BK_PLUGIN_NAMES so the registry can report a plugin that was built but not found;
# adding a device kind is adding a folder that calls this.
set_property(GLOBAL PROPERTY BK_PLUGIN_NAMES "")
set(BK_PLUGIN_MAP ${CMAKE_CURRENT_LIST_DIR}/plugin.map)
function(bk_add_plugin name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "ENTRY;PACKAGE" "SOURCES")
  set(impl bk_${name}_impl)
  add_library(${impl} STATIC ${arg_SOURCES})
  target_link_libraries(${impl} PUBLIC bk_runtime PRIVATE bk_warnings)
  set_target_properties(${impl} PROPERTIES CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  bk_internal_root(${impl} devices/${name})

  add_library(bk-${name} MODULE ${arg_ENTRY})
  target_link_libraries(bk-${name} PRIVATE ${impl} bk_warnings)
  set_target_properties(bk-${name} PROPERTIES PREFIX "lib" CXX_VISIBILITY_PRESET hidden
                                              VISIBILITY_INLINES_HIDDEN ON LINK_DEPENDS ${BK_PLUGIN_MAP})
  target_link_options(bk-${name} PRIVATE -Wl,--version-script=${BK_PLUGIN_MAP})
  set_property(GLOBAL APPEND PROPERTY BK_PLUGIN_NAMES ${name})
  if(NOT arg_PACKAGE)
    set(arg_PACKAGE runtime)
  endif()
  # Installed in <libdir>/bk, it finds libbk one folder up.
  set_target_properties(bk-${name} PROPERTIES INSTALL_RPATH "$ORIGIN/..")
  install(TARGETS bk-${name} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/bk COMPONENT ${arg_PACKAGE})
  set_property(GLOBAL APPEND PROPERTY BK_PLUGIN_PACKAGES ${arg_PACKAGE})
endfunction()
