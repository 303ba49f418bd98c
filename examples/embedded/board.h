#pragma once
// QEMU's mps2-an386 (Arm MPS2 with a Cortex-M4F): console and exit over semihosting, and the FPGA's counter, which
// runs at the 25 MHz system clock: under `-icount shift=0` (one instruction per virtual nanosecond) a tick is 40
// instructions.
#include <cstdint>

namespace board {

/// Instructions per counter tick under QEMU's -icount shift=0.
inline constexpr uint32_t kInstructionsPerTick = 40;

/// Writes a NUL-terminated string to the host's console.
void write(const char* text);
/// Ends the program with an exit code (QEMU exits with it).
[[noreturn]] void exit(int code);
/// The FPGA counter (25 MHz ticks).
inline uint32_t ticks() { return *reinterpret_cast<volatile const uint32_t*>(0x40028018u); }

}  // namespace board
