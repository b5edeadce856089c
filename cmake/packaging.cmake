# Debian packages with CPack, one per install component (cmake/install.cmake):
#   cpack --config build/CPackConfig.cmake -B <dir>   (scripts/package.sh wraps it)
# Depends come from dpkg-shlibdeps where the files link their libraries (libbk0 on libhwloc), and
# are named where a library is loaded at run time instead: the Vulkan plugin dlopens the loader
# (libvulkan1, not any driver: the machine chooses its ICD), the CUDA plugin the NVIDIA driver's
# libcuda (not a Debian dependency: it comes with the driver, however that was installed).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME bk)
set(CPACK_PACKAGE_VENDOR "The bk authors")
set(CPACK_PACKAGE_CONTACT "The bk authors <bk@example.org>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# dpkg-shlibdeps runs in each component's staging folder; libbk.so.0 is staged beside them, in
# libbk0's. Its dependency is named by the component dependencies below instead.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ../runtime/usr/${CMAKE_INSTALL_LIBDIR})
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")

set(_bk_components runtime dev cli)
get_property(_bk_plugin_packages GLOBAL PROPERTY BK_PLUGIN_PACKAGES)
foreach(component vulkan cuda)
  if(component IN_LIST _bk_plugin_packages)
    list(APPEND _bk_components ${component})
  endif()
endforeach()
get_property(_bk_fleet GLOBAL PROPERTY BK_FLEET_MODULE)
if(_bk_fleet)
  list(APPEND _bk_components fleet)
endif()
set(CPACK_COMPONENTS_ALL ${_bk_components})

# bk_debian_package(COMPONENT NAME SECTION SUMMARY DESCRIPTION [DEPENDS <debian deps>]
#                   [REQUIRES <components>])
function(bk_debian_package component name section summary description)
  cmake_parse_arguments(PARSE_ARGV 5 arg "" "DEPENDS" "REQUIRES")
  string(TOUPPER ${component} c)
  set(CPACK_DEBIAN_${c}_PACKAGE_NAME ${name} PARENT_SCOPE)
  set(CPACK_DEBIAN_${c}_PACKAGE_SECTION ${section} PARENT_SCOPE)
  set(CPACK_COMPONENT_${c}_DESCRIPTION "${summary}\n${description}" PARENT_SCOPE)
  set(CPACK_COMPONENT_${c}_DEPENDS ${arg_REQUIRES} PARENT_SCOPE)
  if(arg_DEPENDS)
    set(CPACK_DEBIAN_${c}_PACKAGE_DEPENDS "${arg_DEPENDS}" PARENT_SCOPE)
  endif()
  # Every Debian package carries its copyright and changelog in /usr/share/doc/<name>.
  install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${name}
          RENAME copyright COMPONENT ${component})
  install(FILES ${PROJECT_BINARY_DIR}/generated/changelog.gz
          DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${name} COMPONENT ${component})
endfunction()

# The changelog lintian asks of every package (native: no Debian revision): one entry.
string(TIMESTAMP _bk_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
file(WRITE ${PROJECT_BINARY_DIR}/generated/changelog
     "bk (${PROJECT_VERSION}) unstable; urgency=medium\n\n"
     "  * Built from source with CPack (see bk's README).\n\n"
     " -- ${CPACK_PACKAGE_CONTACT}  ${_bk_date}\n")
execute_process(COMMAND gzip -9nf ${PROJECT_BINARY_DIR}/generated/changelog)

# libbk0 ships a shared library: dpkg runs ldconfig through its trigger.
file(WRITE ${PROJECT_BINARY_DIR}/generated/libbk0/triggers "activate-noawait ldconfig\n")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA ${PROJECT_BINARY_DIR}/generated/libbk0/triggers)
bk_debian_package(runtime libbk0 libs "heterogeneous compute backend library (runtime)"
  "bk finds the compute devices of a machine (the CPU built in; Vulkan and CUDA\nas plugins) and runs tensor graphs across them with a scheduler that explains\nevery placement. This package holds libbk.so.0 and the simulated and null\ndevice kinds.")
bk_debian_package(dev libbk-dev libdevel "heterogeneous compute backend library (development files)"
  "The C and C++20 headers of bk, libbk.so, the CMake package\n(find_package(bk), target bk::bk) and bk.pc for pkg-config." REQUIRES runtime)
bk_debian_package(cli bkctl utils "compute device diagnostics: devices, memory, speed, CI smoke checks"
  "bkctl lists the compute devices bk finds (CPU, Vulkan, CUDA), checks that\ntheir memory can really be used, measures them against their peak, shows how a\ngraph would be split across them and why, and runs hardware smoke checks\nfor CI with JUnit and JSON reports." REQUIRES runtime)
if(fleet IN_LIST _bk_components)
  bk_debian_package(fleet bkctl-mpi utils "compute device diagnostics: fleet mode over MPI"
    "The MPI module of bkctl: under mpirun or srun, bkctl smoke checks every\nnode of a job and rank 0 writes one merged report (docs/ci.md)." REQUIRES cli)
endif()
if(vulkan IN_LIST _bk_components)
  bk_debian_package(vulkan bk-vulkan libs "heterogeneous compute backend library (Vulkan devices)"
    "The Vulkan device plugin of bk. It loads the Vulkan loader at run time\nand uses whatever drivers (ICDs) the machine has; it pulls in none." DEPENDS "libvulkan1" REQUIRES runtime)
endif()
if(cuda IN_LIST _bk_components)
  bk_debian_package(cuda bk-cuda libs "heterogeneous compute backend library (CUDA devices)"
    "The CUDA device plugin of bk. It needs the NVIDIA driver (libcuda.so.1),\nwhich is not a package dependency: install the driver the way the\nmachine's vendor says." REQUIRES runtime)
endif()

include(CPack)
