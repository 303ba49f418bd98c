# `cmake --install` (make install PREFIX=...): headers (with the op table's generated ones), the libraries, the
# scorch-onnx and scorch-server tools, ScorchConfig.cmake with its version file and imported targets (Scorch::scorch, Scorch::train,
# Scorch::cuda, Scorch::libtorch, ...), scorch.pc for pkg-config and the Hugging Face import script.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The static archives under their exported names (Scorch::<name>); the shared libraries' set is
# cmake/shared_libraries.cmake's SCORCH_SHARED_TARGETS. Both forms are installed; BUILD_SHARED_LIBS picks the one
# find_package(Scorch) and scorch.pc give by default.
set(SCORCH_EXPORTED
  scorch_options:options scorch_core:core scorch_backend:backend scorch_cpu:cpu scorch_ir:ir scorch_tensor:tensor
  scorch_autodiff_cpu:autodiff_cpu scorch_fusion_cpu:fusion_cpu scorch_data:data scorch_module:module
  scorch_import_pytorch:import_pytorch scorch_import_onnx:import_onnx scorch_onnx_runtime:onnx_runtime
  scorch_nn:nn scorch_optim:optim scorch:scorch scorch_train:train scorch_distributed:distributed scorch_remote_protocol:remote_protocol
  scorch_remote:remote scorch_dyn_core:dyn_core scorch_dyn_cpu:dyn_cpu)
if(SCORCH_BUILD_CUDA)
  list(APPEND SCORCH_EXPORTED scorch_cuda:cuda scorch_fusion_cuda:fusion_cuda
    scorch_onnx_runtime_cuda:onnx_runtime_cuda)
endif()
if(SCORCH_BUILD_LIBTORCH)
  list(APPEND SCORCH_EXPORTED scorch_libtorch:libtorch)
endif()
if(TARGET scorch_graph)  # compiled inference (oneDNN found at build time)
  list(APPEND SCORCH_EXPORTED scorch_graph:graph)
  set(SCORCH_BUILD_GRAPH ON)
else()
  set(SCORCH_BUILD_GRAPH OFF)
endif()
if(BUILD_SHARED_LIBS)
  set(SCORCH_SHARED_DEFAULT ON)
else()
  set(SCORCH_SHARED_DEFAULT OFF)
endif()

# scorch_install_export(<export set> <target:name>...): installs the targets as Scorch::<name> in <export set>.cmake.
function(scorch_install_export export_set)
  set(targets)
  foreach(pair IN LISTS ARGN)
    string(REPLACE ":" ";" parts ${pair})
    list(GET parts 0 target)
    list(GET parts 1 name)
    set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
    list(APPEND targets ${target})
  endforeach()
  install(TARGETS ${targets} EXPORT ${export_set}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT ${export_set} NAMESPACE Scorch:: DESTINATION ${SCORCH_CMAKE_DIR})
endfunction()

set(SCORCH_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Scorch)
scorch_install_export(ScorchTargets ${SCORCH_EXPORTED})
scorch_install_export(ScorchSharedTargets ${SCORCH_SHARED_TARGETS})
scorch_install_export(ScorchToolTargets scorch-onnx:scorch-onnx scorch-server:scorch-server scorch-run:scorch-run)
# scorch/web (the web pages' model registry) is left out: scorch_web is built for the WebAssembly pages and tests,
# not exported.
install(DIRECTORY scorch/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/scorch
  FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp" PATTERN "*.cuh" PATTERN "web" EXCLUDE)
install(DIRECTORY ${SCORCH_GENERATED_DIR}/scorch/gen DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/scorch)
install(FILES scripts/hf_import.py DESTINATION ${CMAKE_INSTALL_DATADIR}/scorch)

configure_package_config_file(cmake/ScorchConfig.cmake.in ${CMAKE_BINARY_DIR}/ScorchConfig.cmake
  INSTALL_DESTINATION ${SCORCH_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/ScorchConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/ScorchConfig.cmake ${CMAKE_BINARY_DIR}/ScorchConfigVersion.cmake
  cmake/ScorchOnnx.cmake cmake/ScorchPrecompile.cmake DESTINATION ${SCORCH_CMAKE_DIR})

# pkg-config: scorch-static.pc (the Cpu archives in link order, then what they need), scorch-shared.pc
# (libscorch.so) and scorch.pc, a copy of the default form's.
set(SCORCH_STATIC_LIBS "")
foreach(lib scorch_train scorch_optim scorch_nn scorch_onnx_runtime scorch_import_onnx scorch_import_pytorch scorch_data
            scorch_module scorch_fusion_cpu scorch_dyn_cpu scorch_dyn_core scorch_autodiff_cpu scorch_ir scorch_tensor scorch_cpu scorch_core)
  string(APPEND SCORCH_STATIC_LIBS " -l${lib}")
endforeach()
set(SCORCH_STATIC_LIBS "${SCORCH_STATIC_LIBS} -lonnx_proto -lpthread -ldl")
set(SCORCH_PC_CFLAGS "")
set(SCORCH_PC_SANITIZE_LIBS "")
if(SCORCH_NATIVE AND NOT SCORCH_SANITIZE)
  set(SCORCH_PC_CFLAGS "-march=native")
endif()
if(SCORCH_SANITIZE)  # the libraries call the sanitizers' runtimes: their users link them too
  set(SCORCH_PC_CFLAGS "-fsanitize=address,undefined")
  set(SCORCH_PC_SANITIZE_LIBS " -fsanitize=address,undefined")
endif()
file(RELATIVE_PATH SCORCH_PC_INCLUDE_FROM_PC
  /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix/${CMAKE_INSTALL_INCLUDEDIR})
set(SCORCH_PC_FORMS
  "static|zlib sqlite3 libpng libjpeg libxxhash libzip protobuf ncurses nlohmann_json msgpack|${SCORCH_STATIC_LIBS}"
  "shared|nlohmann_json|-lscorch -lpthread")
foreach(form IN LISTS SCORCH_PC_FORMS)
  string(REPLACE "|" ";" parts "${form}")
  list(GET parts 0 SCORCH_PC_FORM)
  list(GET parts 1 SCORCH_PC_REQUIRES)
  list(GET parts 2 SCORCH_PC_LIBS)
  string(STRIP "${SCORCH_PC_LIBS}${SCORCH_PC_SANITIZE_LIBS}" SCORCH_PC_LIBS)
  configure_file(cmake/scorch.pc.in ${CMAKE_BINARY_DIR}/scorch-${SCORCH_PC_FORM}.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/scorch-${SCORCH_PC_FORM}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
if(SCORCH_SHARED_DEFAULT)
  set(SCORCH_PC_DEFAULT shared)
else()
  set(SCORCH_PC_DEFAULT static)
endif()
install(FILES ${CMAKE_BINARY_DIR}/scorch-${SCORCH_PC_DEFAULT}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
  RENAME scorch.pc)
