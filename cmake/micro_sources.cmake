# The micro runtime's sources (scorch/micro), built for bare metal (cmake/freestanding.cmake: errors as a Status) and
# for the host (scorch/CMakeLists.txt: errors thrown), with the quantization parameters the hosted kernels share.
set(SCORCH_MICRO_SOURCES)
foreach(file status weights linear conv pool norm activation attention graph quant)
  list(APPEND SCORCH_MICRO_SOURCES ${CMAKE_CURRENT_LIST_DIR}/../scorch/micro/${file}.cpp)
endforeach()
