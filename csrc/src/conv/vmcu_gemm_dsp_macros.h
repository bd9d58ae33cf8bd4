/*
 * vmcu-tflite runtime: the GEMM assembly's macros that its two sources share (vmcu_dot_dsp.c, the tiles of
 * two pixels and of one; vmcu_gemm3x2_dsp.c, the tile of three): a 2x2 group's multiply-accumulates, the
 * looped rows' scaffold, the narrow requantization, a channel pair's biases, multipliers and shifts, the
 * frame, the two pixels' stores and one section per function.
 * Each source's __asm__ block starts with VMCU_GEMM_DSP_MACROS and ends with VMCU_GEMM_DSP_PURGE (GNU as
 * keeps a macro until it is purged, across the blocks of a translation unit).
 */
#ifndef VMCU_GEMM_DSP_MACROS_H
#define VMCU_GEMM_DSP_MACROS_H

#define VMCU_GEMM_DSP_MACROS                                                                                        \
    /* A row's group of four weights as two words of int16 pairs (ip, lr) against both pixels'                      \
     * input words (r8-r9, r10-r11), into the row's accumulators for pixel 0 (a0) and pixel 1 (a1);                 \
     * with `first`, a1 starts from a0 (both still the row's bias: no copy of it). */                               \
    "    .macro VMCU_SMLAD2X2 a0, a1, first=0\n"                                                                    \
    "    .if \\first\n"                                                                                             \
    "    smlad \\a1, r10, ip, \\a0\n"                                                                               \
    "    .else\n"                                                                                                   \
    "    smlad \\a1, r10, ip, \\a1\n"                                                                               \
    "    .endif\n"                                                                                                  \
    "    smlad \\a1, r11, lr, \\a1\n"                                                                               \
    "    smlad \\a0, r8, ip, \\a0\n"                                                                                \
    "    smlad \\a0, r9, lr, \\a0\n"                                                                                \
    "    .endm\n"                                                                                                   \
    /* The same from one word of int8 weights (lr), widened in two halves first. */                                 \
    "    .macro VMCU_MAC2X2 a0, a1, first=0\n"                                                                      \
    "    sxtb16 ip, lr\n"                                                                                           \
    "    sxtb16 lr, lr, ror #8\n"                                                                                   \
    "    VMCU_SMLAD2X2 \\a0, \\a1, \\first\n"                                                                       \
    "    .endm\n"                                                                                                   \
    /* A row's groups (`group`) from its length in `len`, which it clobbers: two for len & 8, four for              \
     * len & 16 (tested once from the flags of one shift; the groups leave the flags), then passes of               \
     * eight until `at_end` says the row is done. */                                                                \
    "    .macro VMCU_DOT_ROW group, at_end, len\n"                                                                  \
    "    lsls \\len, \\len, #28\n"       /* N: len & 8, C: len & 16 */                                              \
    "    bpl 1f\n"                                                                                                  \
    "    \\group\n"                                                                                                 \
    "    \\group\n"                                                                                                 \
    "1:\n"                                                                                                          \
    "    bcc 2f\n"                                                                                                  \
    "    \\group\n"                                                                                                 \
    "    \\group\n"                                                                                                 \
    "    \\group\n"                                                                                                 \
    "    \\group\n"                                                                                                 \
    "2:\n"                                                                                                          \
    "    \\at_end\n"                                                                                                \
    "    beq 4f\n"                                                                                                  \
    "3:\n"                                                                                                          \
    "    \\group\n"                                                                                                 \
    "    \\group\n"                                                                                                 \
    "    \\group\n"                                                                                                 \
    "    \\group\n"                                                                                                 \
    "    \\group\n"                                                                                                 \
    "    \\group\n"                                                                                                 \
    "    \\group\n"                                                                                                 \
    "    \\group\n"                                                                                                 \
    "    \\at_end\n"                                                                                                \
    "    bne 3b\n"                                                                                                  \
    "4:\n"                                                                                                          \
    "    .endm\n"                                                                                                   \
    /* vmcu_requantize_narrow in place (vmcu_dsp.h), 2 * offset + 1 in lr, the int8 saturation. */                  \
    "    .macro VMCU_NARROW acc, m2, r1\n"                                                                          \
    "    smmlar \\acc, \\acc, \\m2, \\acc\n"                                                                        \
    "    add \\acc, \\acc, \\acc, asr #31\n"                                                                        \
    "    asr \\acc, \\acc, \\r1\n"                                                                                  \
    "    add \\acc, \\acc, lr\n"                                                                                    \
    "    ssat \\acc, #8, \\acc, asr #1\n"                                                                           \
    "    .endm\n"                                                                                                   \
    /* A channel pair's biases (r1, `size` bytes each, read by `load`) into r4-r5: int32 ones by one                \
     * LDRD (the table is an int32_t array: word-aligned). */                                                       \
    "    .macro VMCU_GEMM_BIASES load, size\n"                                                                      \
    "    .if \\size == 4\n"                                                                                         \
    "    ldrd r4, r5, [r1], #8\n"                                                                                   \
    "    .else\n"                                                                                                   \
    "    \\load r4, [r1], #\\size\n"                                                                                \
    "    \\load r5, [r1], #\\size\n"                                                                                \
    "    .endif\n"                                                                                                  \
    "    .endm\n"                                                                                                   \
    /* The GEMM loops' frame from the tile (r0, which it keeps), `extra` bytes past its 20: [sp] the                \
     * pair's shifts and [sp + 4] their end (the loop's test), [sp + 8] and [sp + 12] pixel 0's and                 \
     * pixel 1's outputs, [sp + 16] 2 * offset + 1; the pair's row in r2, the biases in r1. */                      \
    "    .macro VMCU_GEMM2X2_FRAME extra\n"                                                                         \
    "    push {r4-r11, lr}\n"                                                                                       \
    "    sub sp, sp, #(20 + \\extra)\n"                                                                             \
    "    ldr r2, [r0, #4]\n"          /* w */                                                                       \
    "    ldr r1, [r0, #12]\n"         /* bias */                                                                    \
    "    ldr ip, [r0, #20]\n"         /* shift */                                                                   \
    "    ldr lr, [r0, #36]\n"         /* pairs */                                                                   \
    "    add lr, ip, lr, lsl #1\n"    /* the shifts' end */                                                         \
    "    strd ip, lr, [sp]\n"                                                                                       \
    "    ldrd ip, lr, [r0, #24]\n"    /* 2 * offset + 1, out */                                                     \
    "    str ip, [sp, #16]\n"                                                                                       \
    "    ldr ip, [r0, #32]\n"         /* out_stride */                                                              \
    "    add ip, ip, lr\n"                                                                                          \
    "    strd lr, ip, [sp, #8]\n"     /* both pixels' outputs */                                                    \
    "    .endm\n"                                                                                                   \
    /* A channel pair's multipliers (m0, m1) from the pointer the frame keeps at [sp + 28] (the looped              \
     * 2x2 form's and the three-pixel form's), which steps past them. */                                            \
    "    .macro VMCU_GEMM_MULTIPLIERS m0, m1\n"                                                                     \
    "    ldr ip, [sp, #28]\n"                                                                                       \
    "    ldrd \\m0, \\m1, [ip], #8\n"                                                                               \
    "    str ip, [sp, #28]\n"                                                                                       \
    "    .endm\n"                                                                                                   \
    /* A channel pair's shifts (s0, s1) from the frame's pointer, which steps past them, the flags set for          \
     * the last pair (equal: its shifts' end) and 2 * offset + 1 in lr: the start of both tiles' tails. */          \
    "    .macro VMCU_GEMM_SHIFTS s0, s1\n"                                                                          \
    "    ldrd ip, lr, [sp]\n"                                                                                       \
    "    ldrsb \\s0, [ip], #1\n"                                                                                    \
    "    ldrsb \\s1, [ip], #1\n"                                                                                    \
    "    str ip, [sp]\n"                                                                                            \
    "    cmp ip, lr\n"                                                                                              \
    "    ldr lr, [sp, #16]\n"                                                                                       \
    "    .endm\n"                                                                                                   \
    /* Pixel 0's pair of values (r4, r5) and pixel 1's (r6, r7) stored through the frame's output                   \
     * pointers, which step past them. */                                                                           \
    "    .macro VMCU_GEMM_STORE2X2\n"                                                                               \
    "    ldrd ip, lr, [sp, #8]\n"                                                                                   \
    "    strb r4, [ip], #1\n"                                                                                       \
    "    strb r5, [ip], #1\n"                                                                                       \
    "    strb r6, [lr], #1\n"                                                                                       \
    "    strb r7, [lr], #1\n"                                                                                       \
    "    strd ip, lr, [sp, #8]\n"                                                                                   \
    "    .endm\n"                                                                                                   \
    /* One section per function: the link keeps only those a model calls. */                                        \
    "    .macro VMCU_GEMM2X2_K_FUNCTION name, k, load, size, groups, row, body=VMCU_GEMM2X2_K\n"                    \
    "    .pushsection .text.\\name,\"ax\",%progbits\n"                                                              \
    "    .global \\name\n"                                                                                          \
    "    .type \\name, %function\n"                                                                                 \
    "    .p2align 2\n"                                                                                              \
    "    .thumb_func\n"                                                                                             \
    "\\name:\n"                                                                                                     \
    "    \\body \\k, \\load, \\size, \\groups, \\row\n"                                                             \
    "    .size \\name, . - \\name\n"                                                                                \
    "    .popsection\n"                                                                                             \
    "    .endm\n"

#define VMCU_GEMM_DSP_PURGE                                                                                         \
    "    .purgem VMCU_SMLAD2X2\n"                                                                                   \
    "    .purgem VMCU_MAC2X2\n"                                                                                     \
    "    .purgem VMCU_DOT_ROW\n"                                                                                    \
    "    .purgem VMCU_NARROW\n"                                                                                     \
    "    .purgem VMCU_GEMM_BIASES\n"                                                                                \
    "    .purgem VMCU_GEMM2X2_FRAME\n"                                                                              \
    "    .purgem VMCU_GEMM_MULTIPLIERS\n"                                                                           \
    "    .purgem VMCU_GEMM_SHIFTS\n"                                                                                \
    "    .purgem VMCU_GEMM_STORE2X2\n"                                                                              \
    "    .purgem VMCU_GEMM2X2_K_FUNCTION\n"

#endif /* VMCU_GEMM_DSP_MACROS_H */
