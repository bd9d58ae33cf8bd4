/*
 * The GEMM tile of three pixels (a chain row's last of an odd width) over rows of an unrolled length, out of
 * line (Cortex-M with the DSP extension, GCC-compatible compilers): vmcu_gemm3x2[w]_k<k>_narrow_b*_run in
 * vmcu_dsp_gemm.h. The frame, requantization and stores are the two-pixel tiles' (vmcu_gemm_dsp_macros.h).
 */
#include "vmcu/vmcu_dsp.h"

#if VMCU_DOT_RUN
#include "vmcu_gemm_dsp_macros.h"

__asm__(
    "    .pushsection .text.vmcu_gemm3x2_runs,\"ax\",%progbits\n"
    "    .syntax unified\n"
    "    .thumb\n"
    VMCU_GEMM_DSP_MACROS
    /* The tile of three pixels (vmcu_gemm3x2_k<k>_...): each weight word widened once for all three
     * pixels, whose inputs (SXTB16's order, as vmcu_widen_s8 leaves them, k apart) are read by
     * immediate offsets from x (r0) into r1 and r3 (the biases' and multipliers' pointers wait in the
     * frame): 21 instructions per group of four where a pair and a pixel alone take 27. The pixels go
     * last to first, so that in the first group pixels 1 and 2 start from the biases in r4-r5 before
     * pixel 0 adds to them. */
    "    .macro VMCU_PIXEL3X2 a0, a1, at, first\n"
    "    ldrd r1, r3, [r0, #\\at]\n"
    "    .if \\first\n"
    "    smlad \\a0, r1, r10, r4\n"
    "    smlad \\a1, r1, ip, r5\n"
    "    .else\n"
    "    smlad \\a0, r1, r10, \\a0\n"
    "    smlad \\a1, r1, ip, \\a1\n"
    "    .endif\n"
    "    smlad \\a0, r3, r11, \\a0\n"
    "    smlad \\a1, r3, lr, \\a1\n"
    "    .endm\n"
    "    .macro VMCU_PIXELS3X2 k, g\n"
    "    VMCU_PIXEL3X2 r8, r9, (4 * \\k + 8 * \\g), (\\g == 0)\n"
    "    VMCU_PIXEL3X2 r6, r7, (2 * \\k + 8 * \\g), (\\g == 0)\n"
    "    VMCU_PIXEL3X2 r4, r5, (8 * \\g), 0\n"
    "    .endm\n"
    /* With `paired` the rows interleaved word by word (vmcu_gemm3x2p_k<k>_...): both rows' words by one
     * LDRD, 20 instructions per group. */
    "    .macro VMCU_GEMM3X2_K_GROUPS k, g, paired=0\n"
    "    .if \\paired\n"
    "    ldrd r11, lr, [r2, #(8 * \\g)]\n"
    "    .else\n"
    "    ldr r11, [r2, #(4 * \\g)]\n"
    "    ldr lr, [r2, #(\\k + 4 * \\g)]\n"
    "    .endif\n"
    "    sxtb16 r10, r11\n"
    "    sxtb16 r11, r11, ror #8\n"
    "    sxtb16 ip, lr\n"
    "    sxtb16 lr, lr, ror #8\n"
    "    VMCU_PIXELS3X2 \\k, \\g\n"
    "    .if \\g + 1 < \\k / 4\n"
    "    VMCU_GEMM3X2_K_GROUPS \\k, (\\g + 1), \\paired\n"
    "    .endif\n"
    "    .endm\n"
    "    .macro VMCU_GEMM3X2P_K_GROUPS k, g\n"
    "    VMCU_GEMM3X2_K_GROUPS \\k, \\g, 1\n"
    "    .endm\n"
    /* The same over int16 rows (vmcu_gemm3x2w_k<k>_...), the inputs widened in order: each row's group
     * one LDRD, 17 instructions per group where a pair and a pixel alone take 18. */
    "    .macro VMCU_GEMM3X2W_K_GROUPS k, g\n"
    "    ldrd r10, r11, [r2, #(8 * \\g)]\n"
    "    ldrd ip, lr, [r2, #(2 * \\k + 8 * \\g)]\n"
    "    VMCU_PIXELS3X2 \\k, \\g\n"
    "    .if \\g + 1 < \\k / 4\n"
    "    VMCU_GEMM3X2W_K_GROUPS \\k, (\\g + 1)\n"
    "    .endif\n"
    "    .endm\n"
    /* The three-pixel pair's end: the six values requantized (each channel's constants in registers
     * for its three pixels) and stored through the frame's three output pointers. */
    "    .macro VMCU_GEMM3X2_TAIL again\n"
    "    VMCU_GEMM_SHIFTS r10, r11\n"
    "    VMCU_NARROW r4, r1, r10\n"
    "    VMCU_NARROW r6, r1, r10\n"
    "    VMCU_NARROW r8, r1, r10\n"
    "    VMCU_NARROW r5, r3, r11\n"
    "    VMCU_NARROW r7, r3, r11\n"
    "    VMCU_NARROW r9, r3, r11\n"
    "    VMCU_GEMM_STORE2X2\n"
    "    ldr ip, [sp, #20]\n"
    "    strb r8, [ip], #1\n"
    "    strb r9, [ip], #1\n"
    "    str ip, [sp, #20]\n"
    "    bne \\again\n"
    "    .endm\n"
    /* Its frame: the two-pixel one and [sp + 20] pixel 2's outputs, [sp + 24] the biases, [sp + 28]
     * the multipliers. */
    "    .macro VMCU_GEMM3X2_K k, load, size, groups, row\n"
    "    VMCU_GEMM2X2_FRAME 12\n"
    "    ldr r3, [r0, #32]\n"        /* out_stride */
    "    add ip, ip, r3\n"           /* pixel 2's outputs */
    "    strd ip, r1, [sp, #20]\n"
    "    ldr r3, [r0, #16]\n"        /* multiplier */
    "    str r3, [sp, #28]\n"
    "    ldr r0, [r0]\n"             /* x */
    "8:\n"
    "    ldr r1, [sp, #24]\n"
    "    VMCU_GEMM_BIASES \\load, \\size\n"
    "    str r1, [sp, #24]\n"
    "    \\groups \\k, 0\n"
    "    add r2, r2, #(2 * \\row * \\k)\n"  /* the next pair's row */
    "    VMCU_GEMM_MULTIPLIERS r1, r3\n"
    "    VMCU_GEMM3X2_TAIL 8b\n"
    "    add sp, sp, #32\n"
    "    pop {r4-r11, pc}\n"
    "    .endm\n"
    /* The forms of one row length and bias width: int8 rows, int16 rows (the `w` forms) and paired int8 rows (`p`). */
    "    .macro VMCU_GEMM3X2_K_RUN k, bits, load, size\n"
    "    VMCU_GEMM2X2_K_FUNCTION vmcu_gemm3x2_k\\k\\()_narrow_b\\bits\\()_run, \\k, \\load, \\size, "
    "VMCU_GEMM3X2_K_GROUPS, 1, VMCU_GEMM3X2_K\n"
    "    VMCU_GEMM2X2_K_FUNCTION vmcu_gemm3x2w_k\\k\\()_narrow_b\\bits\\()_run, \\k, \\load, \\size, "
    "VMCU_GEMM3X2W_K_GROUPS, 2, VMCU_GEMM3X2_K\n"
    "    VMCU_GEMM2X2_K_FUNCTION vmcu_gemm3x2p_k\\k\\()_narrow_b\\bits\\()_run, \\k, \\load, \\size, "
    "VMCU_GEMM3X2P_K_GROUPS, 1, VMCU_GEMM3X2_K\n"
    "    .endm\n"
    "    .irp k, 8, 16, 24, 32, 40, 48, 64, 80, 96\n"  /* lower.dsp UNROLLED_ROWS */
    "    VMCU_GEMM3X2_K_RUN \\k, 16, ldrsh, 2\n"
    "    VMCU_GEMM3X2_K_RUN \\k, 32, ldr, 4\n"
    "    .endr\n"
    "    .purgem VMCU_GEMM3X2_K_RUN\n"
    "    .purgem VMCU_GEMM3X2_K\n"
    "    .purgem VMCU_GEMM3X2_TAIL\n"
    "    .purgem VMCU_GEMM3X2W_K_GROUPS\n"
    "    .purgem VMCU_GEMM3X2P_K_GROUPS\n"
    "    .purgem VMCU_GEMM3X2_K_GROUPS\n"
    "    .purgem VMCU_PIXELS3X2\n"
    "    .purgem VMCU_PIXEL3X2\n"
    VMCU_GEMM_DSP_PURGE
    "    .popsection\n");

#else
typedef int vmcu_gemm3x2_dsp_unused; /* ISO C: a translation unit declares something */
#endif
