/*
 * Measurements and semihosting for the QEMU boards (see vmcu_board.h).
 */
#include <stdint.h>
#include <stdio.h>

#include "vmcu_board.h"
#include "vmcu_board_internal.h"

/* Instructions per SysTick tick, a ratio set per board by the build (board.cmake):
 * processor clock period in ns, since QEMU's -icount shift=0 runs one instruction per ns. */
#ifndef VMCU_BOARD_INSNS_PER_TICK_NUM
#error "define VMCU_BOARD_INSNS_PER_TICK_NUM and _DEN (instructions per SysTick tick)"
#endif

char *_sbrk(int increment); /* newlib's break, starting at `end` */

static uint64_t measure_start; /* SysTick ticks */

int vmcu_board_semihost(int operation, void *argument)
{
    register int r0 __asm__("r0") = operation;
    register void *r1 __asm__("r1") = argument;
    __asm__ volatile ("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void vmcu_board_exit(int status)
{
    /* SYS_EXIT_EXTENDED: the reason and the exit code, so QEMU exits with `status`. */
    uint32_t block[2];
    block[0] = 0x20026u; /* ADP_Stopped_ApplicationExit */
    block[1] = (uint32_t)status;
    for (;;) {
        (void)vmcu_board_semihost(0x20, block);
    }
}

/* SysTick ticks since reset. A wrap whose interrupt is still pending (we mask interrupts
 * while reading) is counted here, and the counter re-read after it. */
static uint64_t systick_ticks(void)
{
    uint32_t wraps, current;
    __asm__ volatile ("cpsid i" ::: "memory");
    wraps = vmcu_board_systick_wraps;
    current = VMCU_SYST_CVR;
    if (VMCU_SCB_ICSR & VMCU_SCB_ICSR_PENDSTSET) {
        wraps += 1u;
        current = VMCU_SYST_CVR;
    }
    __asm__ volatile ("cpsie i" ::: "memory");
    return ((uint64_t)wraps << 24) + (VMCU_SYST_RELOAD - current);
}

static uint64_t ticks_to_instructions(uint64_t ticks)
{
    return ticks * VMCU_BOARD_INSNS_PER_TICK_NUM / VMCU_BOARD_INSNS_PER_TICK_DEN;
}

uint64_t vmcu_board_instructions(void)
{
    return ticks_to_instructions(systick_ticks());
}

/* Not inlined, so that its caller's frame sits above the painted region. */
__attribute__((noinline))
void vmcu_board_paint_stack(uint32_t *from)
{
    uint32_t sp;
    volatile uint32_t *word = from;
    __asm__ volatile ("mov %0, sp" : "=r"(sp));
    sp -= 64u; /* room for this function's own use of the stack */
    while ((uint32_t)(uintptr_t)word < sp) {
        *word++ = VMCU_STACK_PAINT;
    }
}

/* The heap's first free word (the current break, rounded up): the heap grows over painted words
 * too, so stack scans and repaints start here. */
static uint32_t *heap_break(void)
{
    return (uint32_t *)(((uintptr_t)_sbrk(0) + 3u) & ~(uintptr_t)3u);
}

uint32_t vmcu_board_stack_bytes(void)
{
    const uint32_t *word = heap_break();
    while (word < &__stack_top__ && *word == VMCU_STACK_PAINT) {
        ++word;
    }
    return (uint32_t)((uintptr_t)&__stack_top__ - (uintptr_t)word);
}

uint32_t vmcu_board_heap_bytes(void)
{
    return (uint32_t)((uintptr_t)_sbrk(0) - (uintptr_t)&end);
}

/* printf's %llu is missing from newlib-nano: format 64-bit counts by hand. */
static void print_measure(const char *name, uint64_t value)
{
    char digits[21];
    int i = (int)sizeof digits - 1;
    digits[i] = '\0';
    do {
        digits[--i] = (char)('0' + (int)(value % 10u));
        value /= 10u;
    } while (value != 0u);
    printf("measure %s %s\n", name, &digits[i]);
}

void vmcu_board_measure_begin(void)
{
    /* Forget the start-up's deeper use (semihosting set-up): the high-water mark reported is the
     * frames live now (reset handler, main) plus whatever the measured code adds below them. */
    vmcu_board_paint_stack(heap_break());
    measure_start = systick_ticks();
}

void vmcu_board_measure_end(void)
{
    const uint64_t instructions = ticks_to_instructions(systick_ticks() - measure_start);
    const uint32_t stack = vmcu_board_stack_bytes();
    const uint32_t heap = vmcu_board_heap_bytes();
    print_measure("instructions", instructions);
    print_measure("stack_bytes", stack);
    print_measure("heap_bytes", heap);
}
