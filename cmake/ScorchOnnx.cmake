# scorch_add_onnx_model(<target> <model.onnx> NAME <name>): runs scorch-onnx at build time and puts <name>.h and
# <name>.mpk (the model's SCORCH_MODULE and its weights) in a folder on the target's include path, which
# SCORCH_ONNX_GENERATED_DIR names. Used by the source tree and by an installed Scorch (find_package(Scorch)).
function(scorch_add_onnx_model target model)
  cmake_parse_arguments(ARG "" "NAME" "" ${ARGN})
  if(NOT ARG_NAME)
    message(FATAL_ERROR "scorch_add_onnx_model(${target} ${model}): NAME <name> is required")
  endif()
  cmake_path(ABSOLUTE_PATH model BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})  # relative to the calling CMakeLists
  set(out ${CMAKE_CURRENT_BINARY_DIR}/onnx_generated/${target})
  add_custom_command(OUTPUT ${out}/${ARG_NAME}.h ${out}/${ARG_NAME}.mpk
    COMMAND Scorch::scorch-onnx ${model} --name ${ARG_NAME} --out-dir ${out}
    DEPENDS Scorch::scorch-onnx ${model} COMMENT "scorch-onnx: ${ARG_NAME}.h from ${model}" VERBATIM)
  target_sources(${target} PRIVATE ${out}/${ARG_NAME}.h)
  target_include_directories(${target} PRIVATE ${out})
  target_compile_definitions(${target} PRIVATE SCORCH_ONNX_GENERATED_DIR="${out}")
endfunction()
