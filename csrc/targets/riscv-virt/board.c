/*
 * Measurements for QEMU's RISC-V `virt` machine (see ../common/vmcu_board.h): picolibc's crt0 and
 * semihosting bring C up and carry stdout and the exit status; instructions come from the
 * minstret counter, which QEMU advances by one per instruction under -icount.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "vmcu_board.h"

#define VMCU_STACK_PAINT 0xA5C35A3Cu

/* picolibc.ld: the stack is the top __stack_size bytes of RAM, the heap below it from the end of .bss. */
extern uint32_t __stack[], __heap_start[];
extern char __stack_size[];
void *sbrk(ptrdiff_t increment); /* picolibc's break (POSIX, not declared in strict C99) */

static uint64_t measure_start;

uint64_t vmcu_board_instructions(void)
{
    uint32_t high, low, again;
    do { /* a carry into the high word between the two reads: read again */
        __asm__ volatile ("csrr %0, minstreth" : "=r"(high));
        __asm__ volatile ("csrr %0, minstret" : "=r"(low));
        __asm__ volatile ("csrr %0, minstreth" : "=r"(again));
    } while (high != again);
    return ((uint64_t)high << 32) | low;
}

static uint32_t *stack_bottom(void)
{
    return (uint32_t *)((uintptr_t)__stack - (uintptr_t)__stack_size);
}

/* Not inlined, so that its caller's frame sits above the painted words. */
__attribute__((noinline)) static void paint_stack(void)
{
    volatile uint32_t *word = stack_bottom();
    uintptr_t sp;
    __asm__ volatile ("mv %0, sp" : "=r"(sp));
    sp -= 64u; /* room for this function's own frame */
    while ((uintptr_t)word < sp) {
        *word++ = VMCU_STACK_PAINT;
    }
}

uint32_t vmcu_board_stack_bytes(void)
{
    const uint32_t *word = stack_bottom();
    while (word < __stack && *word == VMCU_STACK_PAINT) {
        ++word;
    }
    return (uint32_t)((uintptr_t)__stack - (uintptr_t)word);
}

uint32_t vmcu_board_heap_bytes(void)
{
    return (uint32_t)((uintptr_t)sbrk(0) - (uintptr_t)__heap_start);
}

void vmcu_board_measure_begin(void)
{
    paint_stack();
    measure_start = vmcu_board_instructions();
}

void vmcu_board_measure_end(void)
{
    const uint64_t instructions = vmcu_board_instructions() - measure_start;
    vmcu_board_print_measure("instructions", instructions);
    vmcu_board_print_measure("stack_bytes", vmcu_board_stack_bytes());
    vmcu_board_print_measure("heap_bytes", vmcu_board_heap_bytes());
}

void vmcu_board_print_measure(const char *name, uint64_t value)
{
    printf("measure %s %llu\n", name, (unsigned long long)value);
}

void vmcu_board_exit(int status)
{
    fflush(stdout);
    exit(status); /* picolibc's semihosting _exit: QEMU ends with `status` */
}
