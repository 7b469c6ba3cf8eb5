# kmc as a CMake package (DESIGN.md, "Library"; docs/library.md).
#
# `cmake --install build --prefix P` puts the `kmc` binary in P/bin, every
# folder library in P/lib, each folder's headers in P/include/kmc/<folder>/
# (so the headers' own "model/scenario.hpp" includes resolve), the umbrella
# <kmc/kmc.hpp> and the RapidCheck generators <kmc/rapidcheck/*.hpp> in
# P/include/kmc/, and the package in P/lib/cmake/kmc/: find_package(kmc)
# gives kmc::kmc, which links every library and their dependencies.
include(CMakePackageConfigHelpers)

set(kmc_folders model checker protocols invariants engine counterexamples cli api)

# kmc::kmc: everything a user needs, the API first (static libraries link in order).
add_library(kmc_kmc INTERFACE)
set_target_properties(kmc_kmc PROPERTIES EXPORT_NAME kmc)
target_link_libraries(kmc_kmc INTERFACE kmc_api kmc_cli kmc_counterexamples kmc_checker
                                        kmc_invariants kmc_protocols kmc_engine kmc_model)
target_include_directories(kmc_kmc INTERFACE $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include>
                                             $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
# The headers' inline assertions (model/assert.hpp) check in a user's code as in the libraries.
if(KMC_ASSERTIONS)
  target_compile_definitions(kmc_kmc INTERFACE KMC_ASSERTIONS)
endif()
add_library(kmc::kmc ALIAS kmc_kmc)

# The generators alone, for this tree's tests (installed, they come with kmc::kmc).
add_library(kmc_generators INTERFACE)
target_link_libraries(kmc_generators INTERFACE kmc_model)
target_include_directories(kmc_generators INTERFACE ${CMAKE_SOURCE_DIR}/include)

set(kmc_libraries kmc_kmc)
foreach(folder IN LISTS kmc_folders)
  set_target_properties(kmc_${folder} PROPERTIES EXPORT_NAME ${folder})
  list(APPEND kmc_libraries kmc_${folder})
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/${folder}/
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kmc/${folder}
          FILES_MATCHING PATTERN "*.hpp" PATTERN "corpus" EXCLUDE)
endforeach()
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/kmc/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kmc)

install(TARGETS kmc RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS ${kmc_libraries} EXPORT kmcTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})

set(kmc_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/kmc)
install(EXPORT kmcTargets NAMESPACE kmc:: DESTINATION ${kmc_cmake_dir})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/kmcConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/kmcConfig.cmake
                              INSTALL_DESTINATION ${kmc_cmake_dir})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/kmcConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/kmcConfig.cmake ${CMAKE_BINARY_DIR}/kmcConfigVersion.cmake
        DESTINATION ${kmc_cmake_dir})
