/*
 * A global average pool's sums over int8 values on the DSP path (vmcu_dsp_arm_lanes.h): the generated
 * chains that end in the pool call it once per tile of pixels (lower.dsp).
 */
#include "vmcu/vmcu_dsp.h"

#if VMCU_DSP && !VMCU_DSP_EMULATED && defined(__GNUC__)
/*
 * In assembly: four sums by one LDM and one STM around a word of four values, each byte added by one
 * instruction (SXTAB, its rotation picking the byte; the top byte by ADD with ASR #24): 9 instructions
 * per four values, where GCC's loop loads and stores each sum alone (15). Then the rest one at a
 * time. The sums are an int32_t array (word-aligned, as LDM needs); the values are read by LDR, which
 * the Cortex-M cores with the DSP extension take unaligned.
 */
__asm__(
    "    .pushsection .text.vmcu_accumulate_s8_dsp,\"ax\",%progbits\n"
    "    .syntax unified\n"
    "    .thumb\n"
    "    .global vmcu_accumulate_s8_dsp\n"
    "    .type vmcu_accumulate_s8_dsp, %function\n"
    "    .p2align 2\n"
    "    .thumb_func\n"
    "vmcu_accumulate_s8_dsp:\n"       /* r0 acc, r1 x, r2 len */
    "    push {r4-r7, lr}\n"
    "    bic r7, r2, #3\n"
    "    add r7, r0, r7, lsl #2\n"      /* the end of the whole words' sums */
    "    and r2, r2, #3\n"              /* the values after them */
    "    b 2f\n"
    "1:\n"
    "    ldr lr, [r1], #4\n"
    "    ldm r0, {r3-r6}\n"
    "    sxtab r3, r3, lr\n"
    "    sxtab r4, r4, lr, ror #8\n"
    "    sxtab r5, r5, lr, ror #16\n"
    "    add r6, r6, lr, asr #24\n"
    "    stmia r0!, {r3-r6}\n"
    "2:\n"
    "    cmp r0, r7\n"
    "    bne 1b\n"
    "    cbz r2, 4f\n"
    "3:\n"
    "    ldrsb r3, [r1], #1\n"
    "    ldr r4, [r0]\n"
    "    add r4, r4, r3\n"
    "    str r4, [r0], #4\n"
    "    subs r2, r2, #1\n"
    "    bne 3b\n"
    "4:\n"
    "    pop {r4-r7, pc}\n"
    "    .size vmcu_accumulate_s8_dsp, . - vmcu_accumulate_s8_dsp\n"
    "    .popsection\n");
#elif VMCU_DSP
/* Emulated (a host build) and other compilers: the same sums in C. */
void vmcu_accumulate_s8_dsp(int32_t *acc, const int8_t *x, int32_t len)
{
    int32_t i;
    for (i = 0; i < len; ++i) {
        acc[i] += x[i];
    }
}
#else
typedef int vmcu_accumulate_dsp_unused; /* ISO C: a translation unit declares something */
#endif
