# `cmake --install` (make install PREFIX=...): headers (with the op table's generated ones), the libraries, the
# scorch-onnx tool, ScorchConfig.cmake with its version file and imported targets (Scorch::scorch, Scorch::train,
# Scorch::cuda, Scorch::libtorch, ...), scorch.pc for pkg-config and the Hugging Face import script.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Library targets under their exported names (Scorch::<name>).
set(SCORCH_EXPORTED
  scorch_options:options scorch_core:core scorch_backend:backend scorch_cpu:cpu scorch_ir:ir scorch_tensor:tensor
  scorch_autodiff_cpu:autodiff_cpu scorch_fusion_cpu:fusion_cpu scorch_data:data scorch_module:module
  scorch_import_pytorch:import_pytorch scorch_import_onnx:import_onnx scorch_onnx_runtime:onnx_runtime
  scorch_nn:nn scorch:scorch scorch_train:train scorch-onnx:scorch-onnx)
if(SCORCH_BUILD_CUDA)
  list(APPEND SCORCH_EXPORTED scorch_cuda:cuda scorch_fusion_cuda:fusion_cuda
    scorch_onnx_runtime_cuda:onnx_runtime_cuda)
endif()
if(SCORCH_BUILD_LIBTORCH)
  list(APPEND SCORCH_EXPORTED scorch_libtorch:libtorch)
endif()
set(SCORCH_INSTALLED_TARGETS)
foreach(pair IN LISTS SCORCH_EXPORTED)
  string(REPLACE ":" ";" parts ${pair})
  list(GET parts 0 target)
  list(GET parts 1 name)
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  list(APPEND SCORCH_INSTALLED_TARGETS ${target})
endforeach()

install(TARGETS ${SCORCH_INSTALLED_TARGETS} EXPORT ScorchTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY scorch/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/scorch
  FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp" PATTERN "*.cuh")
install(DIRECTORY ${SCORCH_GENERATED_DIR}/scorch/gen DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/scorch)
install(FILES scripts/hf_import.py DESTINATION ${CMAKE_INSTALL_DATADIR}/scorch)

set(SCORCH_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Scorch)
install(EXPORT ScorchTargets NAMESPACE Scorch:: DESTINATION ${SCORCH_CMAKE_DIR})
configure_package_config_file(cmake/ScorchConfig.cmake.in ${CMAKE_BINARY_DIR}/ScorchConfig.cmake
  INSTALL_DESTINATION ${SCORCH_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/ScorchConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/ScorchConfig.cmake ${CMAKE_BINARY_DIR}/ScorchConfigVersion.cmake
  cmake/ScorchOnnx.cmake DESTINATION ${SCORCH_CMAKE_DIR})

# pkg-config: the Cpu libraries in link order, then what they need.
set(SCORCH_PC_LIBS "")
foreach(lib scorch_train scorch_nn scorch_onnx_runtime scorch_import_onnx scorch_import_pytorch scorch_data
            scorch_module scorch_fusion_cpu scorch_autodiff_cpu scorch_ir scorch_tensor scorch_cpu scorch_core)
  string(APPEND SCORCH_PC_LIBS " -l${lib}")
endforeach()
string(STRIP "${SCORCH_PC_LIBS}" SCORCH_PC_LIBS)
set(SCORCH_PC_CFLAGS "")
if(SCORCH_NATIVE AND NOT SCORCH_SANITIZE)
  set(SCORCH_PC_CFLAGS "-march=native")
endif()
if(SCORCH_SANITIZE)  # the libraries call the sanitizers' runtimes: their users link them too
  set(SCORCH_PC_CFLAGS "-fsanitize=address,undefined")
  string(APPEND SCORCH_PC_LIBS " -fsanitize=address,undefined")
endif()
file(RELATIVE_PATH SCORCH_PC_INCLUDE_FROM_PC
  /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix/${CMAKE_INSTALL_INCLUDEDIR})
configure_file(cmake/scorch.pc.in ${CMAKE_BINARY_DIR}/scorch.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/scorch.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
