/*
 * Reset and exception handling for the QEMU boards: the vector table, bringing C up, and
 * leaving QEMU with main()'s status. Linked with -nostartfiles: this file replaces newlib's
 * crt0, so nothing runs before vmcu_board_reset() except the hardware's own vector fetch.
 */
#include <stdint.h>
#include <stdio.h>

#include "vmcu_board.h"
#include "vmcu_board_internal.h"

int main(void);
void initialise_monitor_handles(void); /* newlib rdimon: opens the semihosting console */

void vmcu_board_reset(void);
static void fault_handler(void);
static void systick_handler(void);

volatile uint32_t vmcu_board_systick_wraps;

/* A vector is either the initial stack pointer or a handler; a union avoids casting between
 * object and function pointers, which ISO C does not allow. */
typedef union {
    void *stack_top;
    void (*handler)(void);
} vmcu_vector;

/* Exceptions 0..15 (ARMv6-M uses a subset, ARMv8-M adds SecureFault). No peripheral interrupt is
 * enabled, so no entries follow. */
__attribute__((section(".isr_vector"), used))
static const vmcu_vector vectors[16] = {
    {.stack_top = &__stack_top__},
    {.handler = vmcu_board_reset},
    {.handler = fault_handler}, /* NMI */
    {.handler = fault_handler}, /* HardFault */
    {.handler = fault_handler}, /* MemManage */
    {.handler = fault_handler}, /* BusFault */
    {.handler = fault_handler}, /* UsageFault */
    {.handler = fault_handler}, /* SecureFault (ARMv8-M with the Security Extension: M33, M55) */
    {0}, {0}, {0},
    {.handler = fault_handler}, /* SVCall */
    {.handler = fault_handler}, /* DebugMonitor */
    {0},
    {.handler = fault_handler}, /* PendSV */
    {.handler = systick_handler},
};

static void init_memory(void)
{
    const uint32_t *from = &__data_load__;
    uint32_t *to = &__data_start__;
    while (to < &__data_end__) {
        *to++ = *from++;
    }
    for (to = &__bss_start__; to < &__bss_end__; ++to) {
        *to = 0u;
    }
}

/* SysTick on the processor clock, counting down from 2^24 - 1; each wrap is one interrupt. */
static void start_systick(void)
{
    vmcu_board_systick_wraps = 0u;
    VMCU_SYST_RVR = VMCU_SYST_RELOAD;
    VMCU_SYST_CVR = 0u; /* any write clears it: the count starts from the reload value */
    VMCU_SYST_CSR = VMCU_SYST_CSR_CLKSOURCE_CPU | VMCU_SYST_CSR_TICKINT | VMCU_SYST_CSR_ENABLE;
}

void vmcu_board_reset(void)
{
    int status;
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
    /* Full access to the FPU (CP10, CP11) before any code that may use it: the hard-float ABI
     * lets the compiler use FP registers anywhere. On ARMv8.1-M the same fields enable Helium. */
    VMCU_SCB_CPACR |= 0xFu << 20;
    __asm__ volatile ("dsb\n\tisb" ::: "memory");
#endif
    vmcu_board_paint_stack(&end);
    init_memory();
    start_systick();
    initialise_monitor_handles();
    status = main();
    fflush(stdout);
    vmcu_board_exit(status);
}

static void systick_handler(void)
{
    vmcu_board_systick_wraps = vmcu_board_systick_wraps + 1u;
}

#if __ARM_ARCH >= 7 /* ARMv6-M has no fault status registers to show */
static void put_hex(char *text, uint32_t value)
{
    int i;
    for (i = 7; i >= 0; --i) {
        text[i] = "0123456789abcdef"[value & 0xFu];
        value >>= 4;
    }
}
#endif

/* Any fault: say which, with the fault status registers, and stop QEMU (exit code 128 + the
 * exception number) instead of spinning until the host's timeout. */
static void fault_handler(void)
{
    static char message[] = "vmcu-board: exception 00, HFSR 00000000, CFSR 00000000\n";
    uint32_t ipsr;
    __asm__ volatile ("mrs %0, ipsr" : "=r"(ipsr));
    message[22] = (char)('0' + (ipsr / 10u) % 10u);
    message[23] = (char)('0' + ipsr % 10u);
#if __ARM_ARCH >= 7
    put_hex(&message[31], VMCU_SCB_HFSR);
    put_hex(&message[46], VMCU_SCB_CFSR);
#endif
    (void)vmcu_board_semihost(0x04 /* SYS_WRITE0 */, message);
    vmcu_board_exit(128 + (int)ipsr);
}
