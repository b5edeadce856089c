# What `cmake --install` puts where, and in which Debian package (cmake/packaging.cmake) each
# file ends up. One install component per package:
#
#   runtime  libbk0     libbk.so.N, the plugins without dependencies of their own (sim, null)
#   dev      libbk-dev  headers, libbk.so, bkConfig.cmake + bkTargets.cmake, bk.pc
#   cli      bkctl      bkctl, its man page and bash completion
#   vulkan   bk-vulkan  the Vulkan plugin          (bk_add_plugin ... PACKAGE vulkan)
#   cuda     bk-cuda    the CUDA plugin            (bk_add_plugin ... PACKAGE cuda)
#
# Plugins go to <libdir>/bk/, where the registry looks beside libbk (registry.h).
include(CMakePackageConfigHelpers)

set(BK_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/bk)

# The library, its public headers (written and generated) and the exported target bk::bk.
set_target_properties(bk_api PROPERTIES EXPORT_NAME api)
install(TARGETS bk bk_api EXPORT bk-targets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT dev
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/bk ${BK_GENERATED_INCLUDE_DIR}/bk
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev FILES_MATCHING PATTERN "*.h")
install(EXPORT bk-targets NAMESPACE bk:: FILE bkTargets.cmake DESTINATION ${BK_INSTALL_CMAKEDIR}
        COMPONENT dev)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/bkConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/generated/bkConfig.cmake
                              INSTALL_DESTINATION ${BK_INSTALL_CMAKEDIR})
# 0.x: a minor version may break the API, so only the same minor version is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/generated/bkConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/generated/bkConfig.cmake
              ${PROJECT_BINARY_DIR}/generated/bkConfigVersion.cmake
        DESTINATION ${BK_INSTALL_CMAKEDIR} COMPONENT dev)

# bk.pc finds its prefix from its own location, so one file serves every install prefix.
file(RELATIVE_PATH BK_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${CMAKE_CURRENT_LIST_DIR}/bk.pc.in ${PROJECT_BINARY_DIR}/generated/bk.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/generated/bk.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT dev)

# bkctl, with its man page and completion (app/CMakeLists.txt makes both).
install(TARGETS bkctl RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
if(TARGET bkctl_man)
  install(FILES ${BKCTL_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT cli)
endif()
# The graph files the docs and `bkctl sched --help` use.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/examples/ DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/bkctl/examples
        COMPONENT cli)
install(FILES ${PROJECT_SOURCE_DIR}/app/completion/bkctl.bash DESTINATION
        ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME bkctl COMPONENT cli)
