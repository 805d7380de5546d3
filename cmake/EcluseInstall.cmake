# What `cmake --install` puts under a prefix beside the library and headers: the CMake package
# (find_package(Ecluse): Ecluse::ecluse, Ecluse::ecluse_fortran), pkg-config files (ecluse.pc,
# ecluse-fortran.pc), the pure-Python package and the `ecluse` command; the Damaris drop-in's
# package (find_package(Damaris): damaris, Damaris::damaris) and damaris.pc.
include(CMakePackageConfigHelpers)
set(ECLUSE_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Ecluse)

# The MPI family, so that consumers and pkg-config pick the same MPI and HDF5 as the library.
include(CheckSymbolExists)
set(CMAKE_REQUIRED_INCLUDES ${MPI_C_INCLUDE_DIRS})
check_symbol_exists(OPEN_MPI mpi.h ECLUSE_MPI_IS_OPENMPI)
check_symbol_exists(MPICH_VERSION mpi.h ECLUSE_MPI_IS_MPICH)
unset(CMAKE_REQUIRED_INCLUDES)
if(ECLUSE_MPI_IS_OPENMPI)
  set(ECLUSE_MPI_PC ompi-c)
  set(ECLUSE_MPI_FORT_PC ompi-fort)
  set(ECLUSE_HDF5_PC hdf5-openmpi)
elseif(ECLUSE_MPI_IS_MPICH)
  set(ECLUSE_MPI_PC mpich)
  set(ECLUSE_MPI_FORT_PC mpich)
  set(ECLUSE_HDF5_PC hdf5-mpich)
else()  # another MPI: Debian's alternatives' names
  set(ECLUSE_MPI_PC mpi-c)
  set(ECLUSE_MPI_FORT_PC mpi-fort)
  set(ECLUSE_HDF5_PC hdf5-mpi)
endif()

# The package files below describe an installed prefix (paths relative to their installed
# place), so they are generated apart from the build tree's top, where a user could take them
# for a usable package: `cmake --install` first (README).
set(ECLUSE_INSTALL_STAGING ${CMAKE_CURRENT_BINARY_DIR}/install-only)
file(WRITE ${ECLUSE_INSTALL_STAGING}/README
  "These package files describe an installed Ecluse (cmake --install <build> --prefix P);\n"
  "they do not work from the build tree. Use P/lib/cmake/Ecluse or P/lib/pkgconfig.\n")
install(EXPORT EcluseTargets NAMESPACE Ecluse:: DESTINATION ${ECLUSE_CMAKE_INSTALL_DIR})
configure_package_config_file(cmake/EcluseConfig.cmake.in
  ${ECLUSE_INSTALL_STAGING}/EcluseConfig.cmake
  INSTALL_DESTINATION ${ECLUSE_CMAKE_INSTALL_DIR})
write_basic_package_version_file(${ECLUSE_INSTALL_STAGING}/EcluseConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${ECLUSE_INSTALL_STAGING}/EcluseConfig.cmake
  ${ECLUSE_INSTALL_STAGING}/EcluseConfigVersion.cmake DESTINATION ${ECLUSE_CMAKE_INSTALL_DIR})

# Relocatable: the prefix is found from the .pc file's own place (cmake --install --prefix P).
file(RELATIVE_PATH ECLUSE_PC_TO_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" ECLUSE_PC_TO_PREFIX "${ECLUSE_PC_TO_PREFIX}")
configure_file(cmake/ecluse.pc.in ${ECLUSE_INSTALL_STAGING}/ecluse.pc @ONLY)
install(FILES ${ECLUSE_INSTALL_STAGING}/ecluse.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(ECLUSE_BUILD_FORTRAN)
  configure_file(cmake/ecluse-fortran.pc.in ${ECLUSE_INSTALL_STAGING}/ecluse-fortran.pc @ONLY)
  install(FILES ${ECLUSE_INSTALL_STAGING}/ecluse-fortran.pc
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()

# Damaris's names: target `damaris` (Damaris::damaris too), Damaris_LIBRARIES, damaris.pc.
set(ECLUSE_DAMARIS_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Damaris)
install(EXPORT DamarisTargets DESTINATION ${ECLUSE_DAMARIS_CMAKE_INSTALL_DIR})
configure_package_config_file(cmake/DamarisConfig.cmake.in
  ${ECLUSE_INSTALL_STAGING}/DamarisConfig.cmake INSTALL_DESTINATION ${ECLUSE_DAMARIS_CMAKE_INSTALL_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${ECLUSE_INSTALL_STAGING}/DamarisConfigVersion.cmake
  VERSION 1.9.3 COMPATIBILITY SameMajorVersion)
install(FILES ${ECLUSE_INSTALL_STAGING}/DamarisConfig.cmake
  ${ECLUSE_INSTALL_STAGING}/DamarisConfigVersion.cmake DESTINATION ${ECLUSE_DAMARIS_CMAKE_INSTALL_DIR})
# Damaris installs its package in share/cmake/damaris, where some builds (Code_Saturne's
# configure) look for it and read its Damaris_HAS_* lines: a file there loads the one above.
file(RELATIVE_PATH ECLUSE_DAMARIS_SHARE_TO_CONFIG /share/cmake/damaris /${ECLUSE_DAMARIS_CMAKE_INSTALL_DIR})
configure_file(cmake/DamarisShareConfig.cmake.in ${ECLUSE_INSTALL_STAGING}/share/DamarisConfig.cmake
  @ONLY)
install(FILES ${ECLUSE_INSTALL_STAGING}/share/DamarisConfig.cmake
  ${ECLUSE_INSTALL_STAGING}/DamarisConfigVersion.cmake DESTINATION share/cmake/damaris)
configure_file(cmake/damaris.pc.in ${ECLUSE_INSTALL_STAGING}/damaris.pc @ONLY)
install(FILES ${ECLUSE_INSTALL_STAGING}/damaris.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The pure-Python package (energy model, advisor, CLI) and the `ecluse` command, which runs it
# with the Python it was configured with (the venv that has NumPy).
if(ECLUSE_PYTHON_INSTALL_DIR)
  install(DIRECTORY python/ecluse DESTINATION ${ECLUSE_PYTHON_INSTALL_DIR}
    FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
  file(RELATIVE_PATH ECLUSE_PYTHON_FROM_BIN /${CMAKE_INSTALL_BINDIR} /${ECLUSE_PYTHON_INSTALL_DIR})
  configure_file(cmake/ecluse-command.in ${ECLUSE_INSTALL_STAGING}/ecluse-command @ONLY)
  install(PROGRAMS ${ECLUSE_INSTALL_STAGING}/ecluse-command DESTINATION ${CMAKE_INSTALL_BINDIR}
    RENAME ecluse)
endif()
