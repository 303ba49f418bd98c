# The freestanding build (cmake/arm-none-eabi.cmake sets SCORCH_FREESTANDING): the micro runtime (scorch/micro and
# the quantization parameters it shares with the hosted kernels) and the embedded example's firmware; nothing else.
set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE Release)
endif()
include(${CMAKE_CURRENT_LIST_DIR}/micro_sources.cmake)
add_library(scorch_micro STATIC ${SCORCH_MICRO_SOURCES} ${CMAKE_CURRENT_LIST_DIR}/../scorch/core/quant_params.cpp)
target_compile_definitions(scorch_micro PUBLIC SCORCH_FREESTANDING)
target_include_directories(scorch_micro PUBLIC ${CMAKE_CURRENT_LIST_DIR}/..)
target_compile_options(scorch_micro PUBLIC -Wall -Wextra -Wno-unused-parameter)
add_subdirectory(${CMAKE_CURRENT_LIST_DIR}/../examples/embedded ${CMAKE_BINARY_DIR}/embedded)
