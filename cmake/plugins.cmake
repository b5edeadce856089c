# bk_add_plugin(NAME SOURCES...): a device kind built as libbk-NAME.so, loaded at run time by the
# registry. Each call appends NAME to BK_PLUGIN_NAMES so the registry can report a plugin that
# was built but not found; adding a device kind is adding a folder that calls this.
set_property(GLOBAL PROPERTY BK_PLUGIN_NAMES "")
function(bk_add_plugin name)
  add_library(bk-${name} MODULE ${ARGN})
  target_link_libraries(bk-${name} PRIVATE bk bk_warnings)
  set_target_properties(bk-${name} PROPERTIES PREFIX "lib" CXX_VISIBILITY_PRESET hidden
                                              VISIBILITY_INLINES_HIDDEN ON)
  set_property(GLOBAL APPEND PROPERTY BK_PLUGIN_NAMES ${name})
  install(TARGETS bk-${name} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endfunction()
