# scorch_target_precompile(<target> [TRAIN]): <target>'s sources parse Scorch's headers once, from a precompiled
# header of <scorch/scorch.hpp> (and <scorch/train.hpp> with TRAIN), instead of once per source and rebuild. Measured
# by bench/compile/measure.sh (g++ 12, -O0, 2026-12-08): a Learner program 6.4 CPU-seconds without it, 3.9 with it;
# a predictor 3.7 and 1.4; the header itself takes 9.2 s to build once. It pays off from the second source or
# rebuild on. Needs GCC or Clang.
function(scorch_target_precompile target)
  cmake_parse_arguments(ARG "TRAIN" "" "" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "scorch_target_precompile(${target}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}; "
                        "usage: scorch_target_precompile(<target> [TRAIN])")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "scorch_target_precompile: ${target} is not a target; call it after add_executable")
  endif()
  set(headers <scorch/scorch.hpp>)
  if(ARG_TRAIN)
    list(APPEND headers <scorch/train.hpp>)
  endif()
  target_precompile_headers(${target} PRIVATE ${headers})
endfunction()
