// Start-up for mps2-an386: the vector table, copying .data and zeroing .bss, the FPU, static constructors, then
// main(); semihosting for the console and exit (board.h). No C library start files, no heap.
#include <cstdint>

#include "board.h"

extern "C" {
extern uint32_t __stack_top, __data_load, __data_start, __data_end, __bss_start, __bss_end;
extern void (*__init_array_start[])(), (*__init_array_end[])();
int main();

namespace {

// A semihosting call (the debugger trap QEMU answers with -semihosting).
int semihost(int operation, const void* argument) {
  register int r0 asm("r0") = operation;
  register const void* r1 asm("r1") = argument;
  asm volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

}  // namespace

/// The reset vector: prepares memory and the FPU, runs static constructors, then main().
[[noreturn]] void reset_handler() {
  const uint32_t* from = &__data_load;
  for (uint32_t* to = &__data_start; to < &__data_end;) *to++ = *from++;
  for (uint32_t* to = &__bss_start; to < &__bss_end;) *to++ = 0;
  *reinterpret_cast<volatile uint32_t*>(0xE000ED88u) |= 0xFu << 20;  // CPACR: CP10 and CP11 (the FPU) on
  asm volatile("dsb\n isb");
  for (auto* init = __init_array_start; init < __init_array_end; ++init) (*init)();
  board::exit(main());
}

namespace {

[[noreturn]] void fault_handler() {
  board::write("fault\n");
  board::exit(3);
}

}  // namespace

/// Called by a pure virtual function's slot; never reached in a correct program.
void __cxa_pure_virtual() { fault_handler(); }

__attribute__((section(".vectors"), used))
const void* const vectors[16] = {&__stack_top,
                                 reinterpret_cast<const void*>(reset_handler),
                                 reinterpret_cast<const void*>(fault_handler),
                                 reinterpret_cast<const void*>(fault_handler),
                                 reinterpret_cast<const void*>(fault_handler),
                                 reinterpret_cast<const void*>(fault_handler),
                                 reinterpret_cast<const void*>(fault_handler)};
}

namespace board {

void write(const char* text) { semihost(0x04, text); }  // SYS_WRITE0

void exit(int code) {
  uint32_t block[2] = {0x20026u, uint32_t(code)};  // ADP_Stopped_ApplicationExit and the code
  semihost(0x20, block);                           // SYS_EXIT_EXTENDED
  for (;;) {}
}

}  // namespace board
