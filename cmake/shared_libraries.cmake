# The shared libraries: libscorch.so (every Cpu layer and the Learner) and, where the build has them,
# libscorch_cuda.so and libscorch_libtorch.so, each linked from the static archives' position-independent objects
# (one compile for both forms). Only Scorch's own symbols are exported (cmake/scorch.map): protobuf's ONNX classes,
# the standard library's and nlohmann's instantiations stay inside. The installed package uses them when Scorch is
# built with -DBUILD_SHARED_LIBS=ON or its user sets SCORCH_SHARED=ON (cmake/ScorchConfig.cmake.in).

set(SCORCH_VERSION_SCRIPT ${PROJECT_SOURCE_DIR}/cmake/scorch.map)
# A shared library target needs a source of its own besides the archives' objects.
set(SCORCH_SHARED_LIBRARY_SOURCE ${CMAKE_BINARY_DIR}/shared_library.cpp)
file(CONFIGURE OUTPUT ${SCORCH_SHARED_LIBRARY_SOURCE} CONTENT "// The shared libraries' objects come from the static archives.\n")
set(SCORCH_CPU_ARCHIVES scorch_train scorch_distributed scorch_optim scorch_nn scorch_onnx_runtime scorch_import_onnx
  scorch_import_pytorch scorch_data scorch_module scorch_fusion_cpu scorch_dyn_cpu scorch_dyn_core scorch_autodiff_cpu scorch_ir scorch_tensor
  scorch_cpu scorch_core)

# scorch_shared_library(<target> <output name> ARCHIVES <static libs> DEPENDS <shared targets> PUBLIC <interface>):
# a shared library holding every object of ARCHIVES, linked against DEPENDS, with scorch_options' compile
# interface (C++20, the headers, -march=native when the archives have it) and PUBLIC as its own.
function(scorch_shared_library target output_name)
  cmake_parse_arguments(ARG "" "" "ARCHIVES;DEPENDS;PUBLIC" ${ARGN})
  # The archives' objects; then the shared libraries it depends on, so that they (not archive members) define what
  # the objects use from lower layers; then the archives themselves, for the third-party libraries they link.
  set(objects)
  foreach(archive IN LISTS ARG_ARCHIVES)
    list(APPEND objects $<TARGET_OBJECTS:${archive}>)
  endforeach()
  add_library(${target} SHARED ${SCORCH_SHARED_LIBRARY_SOURCE} ${objects})
  target_link_libraries(${target} PUBLIC ${ARG_DEPENDS} ${ARG_PUBLIC})
  target_link_libraries(${target} PRIVATE ${ARG_ARCHIVES})
  target_link_options(${target} PRIVATE -Wl,--version-script=${SCORCH_VERSION_SCRIPT} -Wl,--no-undefined)
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${SCORCH_VERSION_SCRIPT})
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${output_name} VERSION ${PROJECT_VERSION}
    SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR} INSTALL_RPATH "$ORIGIN"
    INSTALL_RPATH_USE_LINK_PATH ON)  # + the folders of what it links outside the system's (CUDA's, LibTorch's)
  # scorch_options is a build-tree target: its exported interface is copied (its warnings are the build's own).
  target_link_libraries(${target} PRIVATE scorch_options)
  foreach(property INTERFACE_COMPILE_FEATURES INTERFACE_COMPILE_OPTIONS INTERFACE_INCLUDE_DIRECTORIES
      INTERFACE_LINK_OPTIONS)
    get_target_property(value scorch_options ${property})
    if(value)
      set_property(TARGET ${target} APPEND PROPERTY ${property} "${value}")
    endif()
  endforeach()
endfunction()

scorch_shared_library(scorch_shared scorch ARCHIVES ${SCORCH_CPU_ARCHIVES}
  PUBLIC nlohmann_json::nlohmann_json Threads::Threads)
# Scorch::train of the shared form: the Learner is inside libscorch.so.
add_library(scorch_train_shared INTERFACE)
target_link_libraries(scorch_train_shared INTERFACE scorch_shared)
set(SCORCH_SHARED_TARGETS scorch_shared:scorch scorch_train_shared:train)
if(SCORCH_BUILD_CUDA)
  scorch_shared_library(scorch_cuda_shared scorch_cuda
    ARCHIVES scorch_onnx_runtime_cuda scorch_fusion_cuda scorch_cuda DEPENDS scorch_shared)
  target_compile_definitions(scorch_cuda_shared INTERFACE SCORCH_HAVE_CUDA)
  list(APPEND SCORCH_SHARED_TARGETS scorch_cuda_shared:cuda)
  foreach(name fusion_cuda onnx_runtime_cuda)  # the archives' names for parts of libscorch_cuda.so
    add_library(scorch_${name}_shared INTERFACE)
    target_link_libraries(scorch_${name}_shared INTERFACE scorch_cuda_shared)
    list(APPEND SCORCH_SHARED_TARGETS scorch_${name}_shared:${name})
  endforeach()
endif()
if(SCORCH_BUILD_LIBTORCH)
  scorch_shared_library(scorch_libtorch_shared scorch_libtorch ARCHIVES scorch_libtorch DEPENDS scorch_shared)
  target_compile_definitions(scorch_libtorch_shared INTERFACE SCORCH_HAVE_LIBTORCH)
  list(APPEND SCORCH_SHARED_TARGETS scorch_libtorch_shared:libtorch)
endif()
if(TARGET scorch_graph)  # compiled inference on oneDNN: libscorch_graph.so over libscorch.so
  scorch_shared_library(scorch_graph_shared scorch_graph ARCHIVES scorch_graph DEPENDS scorch_shared)
  list(APPEND SCORCH_SHARED_TARGETS scorch_graph_shared:graph)
endif()
set(SCORCH_SHARED_TARGETS ${SCORCH_SHARED_TARGETS} PARENT_SCOPE)  # for cmake/install.cmake
