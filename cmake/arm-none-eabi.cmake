# Toolchain for the freestanding build (SCORCH_FREESTANDING): Debian's arm-none-eabi-gcc for a Cortex-M4F (QEMU's
# mps2-an386), newlib-nano for memcpy and the math functions, no exceptions, no RTTI, no start files.
# cmake -S . -B build-embedded -DCMAKE_TOOLCHAIN_FILE=cmake/arm-none-eabi.cmake -DSCORCH_EMBEDDED_GENERATED=DIR
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(SCORCH_FREESTANDING ON CACHE BOOL "The freestanding micro runtime only" FORCE)
set(SCORCH_MCU_FLAGS "-mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard" CACHE STRING "Target CPU flags")
set(CMAKE_CXX_FLAGS_INIT
    "${SCORCH_MCU_FLAGS} -fno-exceptions -fno-rtti -fno-threadsafe-statics -ffunction-sections -fdata-sections")
set(CMAKE_CXX_FLAGS_RELEASE_INIT "-O2")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${SCORCH_MCU_FLAGS} -nostartfiles -Wl,--gc-sections --specs=nano.specs")
