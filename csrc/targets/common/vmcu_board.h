/*
 * Board support for running a vmcu program on an emulated Cortex-M board (QEMU).
 *
 * startup.c brings the board up (vector table, .data/.bss, FPU, stack painting, SysTick) and
 * calls main(); this header is what a program may call afterwards. Output goes through
 * semihosting (newlib's rdimon), so printf() appears on QEMU's standard output.
 *
 * Measurements are taken between vmcu_board_measure_begin() and vmcu_board_measure_end():
 *  - instructions: executed instructions, from SysTick on the processor clock. Under QEMU with
 *    `-icount shift=0` each instruction advances virtual time by 1 ns, so SysTick counts
 *    instructions, not cycles; the resolution is one tick (VMCU_BOARD_INSNS_PER_TICK_*).
 *  - stack_bytes: the stack's high-water mark, found by scanning the painted region. The free
 *    stack is painted again by vmcu_board_measure_begin(), so it counts the frames live then
 *    (reset handler, main) plus the deepest use of the measured code, not the start-up's.
 *  - heap_bytes: heap handed out by sbrk() so far. The runtime never allocates; newlib's stdio
 *    does (its FILE structures at start-up, printf's buffer on first use).
 */
#ifndef VMCU_BOARD_H
#define VMCU_BOARD_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Instructions since reset (resolution: one SysTick tick). */
uint64_t vmcu_board_instructions(void);

/** Deepest stack use since the last paint (reset or measure_begin), in bytes below the top of RAM. */
uint32_t vmcu_board_stack_bytes(void);

/** Bytes of heap sbrk() has handed out since reset. */
uint32_t vmcu_board_heap_bytes(void);

/** Start an instruction measurement. */
void vmcu_board_measure_begin(void);

/**
 * End it and print `measure instructions N`, `measure stack_bytes N`, `measure heap_bytes N`.
 * The stack and heap are read before anything is printed, so printf's own use is not counted.
 */
void vmcu_board_measure_end(void);

/** Leave QEMU through semihosting with `status` as its exit code. Does not return. */
void vmcu_board_exit(int status);

#ifdef __cplusplus
}
#endif

#endif /* VMCU_BOARD_H */
