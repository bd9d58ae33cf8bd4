/*
 * The 2x2, 2x4 and 1x2 GEMM tiles over widened inputs, and the GEMM channel loops built on the 2x2
 * one, out of line (Cortex-M with the DSP extension, GCC-compatible compilers): see
 * vmcu_dot2x2_s16_s8_run and vmcu_gemm_tile in vmcu_dsp.h.
 */
#include "vmcu/vmcu_dsp.h"

#if VMCU_DOT_RUN
#include "vmcu_gemm_dsp_macros.h"

/*
 * vmcu_dot2x2_s16_s8_run is written in assembly because it needs all fourteen registers: the four
 * accumulators (r4-r7), both pixels' current pair of input words (r8-r9, r10-r11), one weight word
 * widened in two halves (ip, lr), the input pointers (r0, r1), the first row's pointer (r2) and the
 * second row's distance from it (r3, read before the first row's pointer steps), so that each input
 * word is loaded once: 16 instructions per group of four inputs (two LDRD, two LDR, four SXTB16,
 * eight SMLAD). A row's groups beyond a multiple of eight come first (two for len & 8, four for
 * len & 16, tested once from the flags of one shift), then passes of eight. The row's end stays on
 * the stack at [sp], in the slot pushing r3 makes; the caller's len and acc are at [sp + 40] and
 * [sp + 44].
 *
 * vmcu_dot2x4_s16_s8_run, a GEMM's tile of four evenly spaced weight rows (acc[4p + k]), runs the
 * same row twice in one call, the second pair from the inputs' starts (kept at [sp + 4] and
 * [sp + 8]): the second call's setup, prologue and epilogue saved. Its caller's len and acc are at
 * [sp + 48] and [sp + 52].
 *
 * vmcu_dot1x2_s16_s8_run, a row's odd last pixel: its pair of input words held (r6-r7) against both
 * rows, 11 instructions per group of four inputs, the row's end in r8.
 *
 * The three expand one row scaffold (VMCU_DOT_ROW, vmcu_gemm_dsp_macros.h) with their own group and
 * end test, each also in a `p` form (vmcu_dot2x2p_s16_s8_run, ...) over a paired filter's rows (w1 =
 * w0 + 4, each row's next group 8 bytes on): the C fallbacks' paired dot products (vmcu_dsp_gemm.h).
 * The GEMM forms below come in three layouts of the weight rows: int8 rows len apart, int16 rows (the
 * `w` forms) and int8 rows interleaved in pairs (the `p` forms, kernels/paired_weights.py).
 */
__asm__(
    "    .pushsection .text.vmcu_dot_s16_s8_runs,\"ax\",%progbits\n"
    "    .syntax unified\n"
    "    .thumb\n"
    VMCU_GEMM_DSP_MACROS
    /* A group of four inputs of both pixels against both rows: the second row's word r3 past the
     * first's, which then steps `wstep` bytes (4 for rows apart, 8 for paired rows, r3 = 4). */
    "    .macro VMCU_DOT2X2_GROUP wstep=4\n"
    "    ldrd r8, r9, [r0], #8\n"
    "    ldrd r10, r11, [r1], #8\n"
    "    ldr lr, [r2, r3]\n"
    "    VMCU_MAC2X2 r5, r7\n"
    "    ldr lr, [r2], #\\wstep\n"
    "    VMCU_MAC2X2 r4, r6\n"
    "    .endm\n"
    "    .macro VMCU_DOT2X2P_GROUP\n"
    "    VMCU_DOT2X2_GROUP 8\n"
    "    .endm\n"
    /* The GEMM's group over both pixels' inputs interleaved (vmcu_widen_s8_pair): one LDM. */
    "    .macro VMCU_GEMM2X2_GROUP\n"
    "    ldm r0!, {r8-r11}\n"
    "    ldr lr, [r2, r3]\n"
    "    VMCU_MAC2X2 r5, r7\n"
    "    ldr lr, [r2], #4\n"
    "    VMCU_MAC2X2 r4, r6\n"
    "    .endm\n"
    "    .macro VMCU_DOT1X2_GROUP wstep=4\n"
    "    ldrd r6, r7, [r0], #8\n"
    "    ldr lr, [r1, r2]\n"
    "    sxtb16 ip, lr\n"
    "    sxtb16 lr, lr, ror #8\n"
    "    smlad r5, r6, ip, r5\n"
    "    smlad r5, r7, lr, r5\n"
    "    ldr lr, [r1], #\\wstep\n"
    "    sxtb16 ip, lr\n"
    "    sxtb16 lr, lr, ror #8\n"
    "    smlad r4, r6, ip, r4\n"
    "    smlad r4, r7, lr, r4\n"
    "    .endm\n"
    "    .macro VMCU_DOT1X2P_GROUP\n"
    "    VMCU_DOT1X2_GROUP 8\n"
    "    .endm\n"
    "    .macro VMCU_DOT2X2_AT_END\n"     /* flags: r0 at the row's end, kept at [sp] */
    "    ldr ip, [sp]\n"
    "    cmp r0, ip\n"
    "    .endm\n"
    "    .macro VMCU_DOT1X2_AT_END\n"     /* flags: r0 at the row's end, kept in r8 */
    "    cmp r0, r8\n"
    "    .endm\n"
    /* The 2x2 row: len at [sp + len] (or in ip), its end kept at [sp]. */
    "    .macro VMCU_DOT2X2_ROW len, loaded, group\n"
    "    .if \\loaded == 0\n"
    "    ldr ip, [sp, #\\len]\n"
    "    .endif\n"
    "    add lr, r0, ip, lsl #1\n"
    "    str lr, [sp]\n"
    "    VMCU_DOT_ROW \\group, VMCU_DOT2X2_AT_END, ip\n"
    "    .endm\n"
    /* A function's start: global, aligned, Thumb. */
    "    .macro VMCU_DOT_FUNCTION name\n"
    "    .global \\name\n"
    "    .type \\name, %function\n"
    "    .p2align 2\n"
    "    .thumb_func\n"
    "\\name:\n"
    "    .endm\n"
    /* vmcu_dot2x2[p]_s16_s8_run */
    "    .macro VMCU_DOT2X2_RUN name, group\n"
    "    VMCU_DOT_FUNCTION \\name\n"
    "    push {r3-r11, lr}\n"
    "    ldrd ip, lr, [sp, #40]\n"     /* len, acc */
    "    ldm lr, {r4-r7}\n"            /* a00, a01, a10, a11 */
    "    subs r3, r3, r2\n"            /* w1 - w0 */
    "    VMCU_DOT2X2_ROW 40, 1, \\group\n"
    "    ldr ip, [sp, #44]\n"
    "    stm ip, {r4-r7}\n"
    "    pop {r3-r11, pc}\n"
    "    .size \\name, . - \\name\n"
    "    .endm\n"
    /* vmcu_dot2x4[p]_s16_s8_run: after the first pair's row, r2 is len (rows apart) or 2 len (paired:
     * exactly the second pair's start) past w0. */
    "    .macro VMCU_DOT2X4_RUN name, group, paired\n"
    "    VMCU_DOT_FUNCTION \\name\n"
    "    push {r4-r11, lr}\n"
    "    sub sp, sp, #12\n"
    "    ldr lr, [sp, #52]\n"          /* acc */
    "    strd r0, r1, [sp, #4]\n"      /* the inputs' starts */
    "    ldrd r4, r5, [lr]\n"          /* a00, a01 */
    "    ldrd r6, r7, [lr, #16]\n"     /* a10, a11 */
    "    subs r3, r3, r2\n"            /* w1 - w0 */
    "    VMCU_DOT2X2_ROW 48, 0, \\group\n"
    "    ldr ip, [sp, #52]\n"
    "    strd r4, r5, [ip]\n"
    "    strd r6, r7, [ip, #16]\n"
    "    ldrd r4, r5, [ip, #8]\n"      /* a02, a03 */
    "    ldrd r6, r7, [ip, #24]\n"     /* a12, a13 */
    "    ldrd r0, r1, [sp, #4]\n"
    "    .if \\paired == 0\n"
    "    ldr ip, [sp, #48]\n"
    "    add r2, r2, r3\n"             /* w0 + 2 (w1 - w0): the row pointer, less the len it stepped */
    "    sub r2, r2, ip\n"
    "    add r2, r2, r3\n"
    "    .endif\n"
    "    VMCU_DOT2X2_ROW 48, 0, \\group\n"
    "    ldr ip, [sp, #52]\n"
    "    strd r4, r5, [ip, #8]\n"
    "    strd r6, r7, [ip, #24]\n"
    "    add sp, sp, #12\n"
    "    pop {r4-r11, pc}\n"
    "    .size \\name, . - \\name\n"
    "    .endm\n"
    /* vmcu_dot1x2[p]_s16_s8_run */
    "    .macro VMCU_DOT1X2_RUN name, group\n"
    "    VMCU_DOT_FUNCTION \\name\n"
    "    push {r4-r8, lr}\n"
    "    ldr ip, [sp, #24]\n"         /* acc */
    "    ldrd r4, r5, [ip]\n"         /* a0, a1 */
    "    subs r2, r2, r1\n"           /* w1 - w0 */
    "    add r8, r0, r3, lsl #1\n"    /* the row's end */
    "    VMCU_DOT_ROW \\group, VMCU_DOT1X2_AT_END, r3\n"
    "    ldr ip, [sp, #24]\n"
    "    strd r4, r5, [ip]\n"
    "    pop {r4-r8, pc}\n"
    "    .size \\name, . - \\name\n"
    "    .endm\n"
    "    VMCU_DOT2X2_RUN vmcu_dot2x2_s16_s8_run, VMCU_DOT2X2_GROUP\n"
    "    VMCU_DOT2X2_RUN vmcu_dot2x2p_s16_s8_run, VMCU_DOT2X2P_GROUP\n"
    "    VMCU_DOT2X4_RUN vmcu_dot2x4_s16_s8_run, VMCU_DOT2X2_GROUP, 0\n"
    "    VMCU_DOT2X4_RUN vmcu_dot2x4p_s16_s8_run, VMCU_DOT2X2P_GROUP, 1\n"
    "    VMCU_DOT1X2_RUN vmcu_dot1x2_s16_s8_run, VMCU_DOT1X2_GROUP\n"
    "    VMCU_DOT1X2_RUN vmcu_dot1x2p_s16_s8_run, VMCU_DOT1X2P_GROUP\n"
    /* A channel pair's end in either loop: its multipliers in r8-r9, its shifts read and the test
     * for the last pair made (no instruction after it sets the flags), the four accumulators
     * requantized and stored through the frame's output pointers; back to `again` for the next. */
    "    .macro VMCU_GEMM2X2_TAIL again\n"
    "    VMCU_GEMM_SHIFTS r10, r11\n"
    "    VMCU_NARROW r4, r8, r10\n"
    "    VMCU_NARROW r6, r8, r10\n"
    "    VMCU_NARROW r5, r9, r11\n"
    "    VMCU_NARROW r7, r9, r11\n"
    "    VMCU_GEMM_STORE2X2\n"
    "    bne \\again\n"
    "    .endm\n"
    /* vmcu_gemm2x2_narrow_b*_run, its biases read by `load` (`size` bytes each): the row loop over
     * both pixels' interleaved inputs (r0), the second weight row len bytes (r3) past the first
     * (r2), so that the next pair's row is r3 past the row's end. The frame's extra 16 bytes hold
     * [sp + 20] the inputs, [sp + 24] len, [sp + 28] the multipliers, [sp + 32] the inputs' end. */
    "    .macro VMCU_GEMM2X2_AT_END\n"    /* flags: r0 at the inputs' end */
    "    ldr ip, [sp, #32]\n"
    "    cmp r0, ip\n"
    "    .endm\n"
    /* A group over paired rows: row 0's word in r3, row 1's in lr (one LDRD), both widened in turn. */
    "    .macro VMCU_MAC2X2P first=0\n"
    "    VMCU_MAC2X2 r5, r7, \\first\n"
    "    sxtb16 ip, r3\n"
    "    sxtb16 lr, r3, ror #8\n"
    "    VMCU_SMLAD2X2 r4, r6, \\first\n"
    "    .endm\n"
    "    .macro VMCU_GEMM2X2P_GROUP\n"   /* the same over paired rows: both rows' words by one LDRD */
    "    ldm r0!, {r8-r11}\n"
    "    ldrd r3, lr, [r2], #8\n"
    "    VMCU_MAC2X2P\n"
    "    .endm\n"
    /* `group` the row's group, `row` 1 where the rows are len apart (the next pair's row len past the
     * row's end), 0 where they are paired (the row's end is the next pair's; r3 is the group's) */
    "    .macro VMCU_GEMM2X2_NARROW k, load, size, group, row\n"
    "    VMCU_GEMM2X2_FRAME 16\n"
    "    ldr ip, [r0, #16]\n"         /* multiplier */
    "    str ip, [sp, #28]\n"
    "    ldr r3, [r0, #8]\n"          /* len */
    "    ldr ip, [r0]\n"              /* x */
    "    strd ip, r3, [sp, #20]\n"
    "    add ip, ip, r3, lsl #2\n"    /* both pixels: four bytes per input */
    "    str ip, [sp, #32]\n"
    "5:\n"
    "    VMCU_GEMM_BIASES \\load, \\size\n"
    "    mov r6, r4\n"
    "    mov r7, r5\n"
    "    ldrd r0, ip, [sp, #20]\n"    /* x, len */
    "    VMCU_DOT_ROW \\group, VMCU_GEMM2X2_AT_END, ip\n"
    "    .if \\row\n"
    "    add r2, r2, r3\n"            /* the next pair's row */
    "    .endif\n"
    "    VMCU_GEMM_MULTIPLIERS r8, r9\n"
    "    VMCU_GEMM2X2_TAIL 5b\n"
    "    add sp, sp, #36\n"
    "    pop {r4-r11, pc}\n"
    "    .endm\n"
    /* vmcu_gemm1x2_narrow_b*_run: the tile of one pixel over rows of any len (a multiple of 8), its
     * inputs in SXTB16's order from x (r11, r0 in the row loop, which ends at r8), the second row len
     * (r3) past the first (r2), the multipliers from r10. */
    "    .macro VMCU_GEMM1X2_GROUP\n"
    "    ldrd r6, r7, [r0], #8\n"
    "    ldr lr, [r2, r3]\n"
    "    sxtb16 ip, lr\n"
    "    sxtb16 lr, lr, ror #8\n"
    "    smlad r5, r6, ip, r5\n"
    "    smlad r5, r7, lr, r5\n"
    "    ldr lr, [r2], #4\n"
    "    sxtb16 ip, lr\n"
    "    sxtb16 lr, lr, ror #8\n"
    "    smlad r4, r6, ip, r4\n"
    "    smlad r4, r7, lr, r4\n"
    "    .endm\n"
    /* One pixel's group (inputs r6-r7) over paired rows: row 0's word in `w0`, row 1's in lr. */
    "    .macro VMCU_MAC1X2P w0\n"
    "    sxtb16 ip, lr\n"
    "    sxtb16 lr, lr, ror #8\n"
    "    smlad r5, r6, ip, r5\n"
    "    smlad r5, r7, lr, r5\n"
    "    sxtb16 ip, \\w0\n"
    "    sxtb16 \\w0, \\w0, ror #8\n"
    "    smlad r4, r6, ip, r4\n"
    "    smlad r4, r7, \\w0, r4\n"
    "    .endm\n"
    "    .macro VMCU_GEMM1X2P_GROUP\n"   /* paired rows: both rows' words by one LDRD (r9 free in the row) */
    "    ldrd r6, r7, [r0], #8\n"
    "    ldrd r9, lr, [r2], #8\n"
    "    VMCU_MAC1X2P r9\n"
    "    .endm\n"
    /* a function body (k unused): `groups` the row's group, `row` as VMCU_GEMM2X2_NARROW's */
    "    .macro VMCU_GEMM1X2_NARROW k, load, size, groups, row\n"
    "    VMCU_GEMM2X2_FRAME 0\n"
    "    ldr r10, [r0, #16]\n"        /* multiplier */
    "    ldr r3, [r0, #8]\n"          /* len */
    "    ldr r11, [r0]\n"             /* x */
    "9:\n"
    "    VMCU_GEMM_BIASES \\load, \\size\n"
    "    mov r0, r11\n"
    "    add r8, r11, r3, lsl #1\n"   /* the row's end */
    "    mov ip, r3\n"
    "    VMCU_DOT_ROW \\groups, VMCU_DOT1X2_AT_END, ip\n"
    "    .if \\row\n"
    "    add r2, r2, r3\n"            /* the next pair's row */
    "    .endif\n"
    "    ldrd r8, r9, [r10], #8\n"    /* the pair's multipliers */
    "    VMCU_GEMM1X2_TAIL 9b\n"
    "    add sp, sp, #20\n"
    "    pop {r4-r11, pc}\n"
    "    .endm\n"
    /* vmcu_gemm2x2_k<k>_narrow_b*_run: rows of exactly k inputs (the tile's len is not read), each
     * row unrolled (`VMCU_GEMM2X2_K_GROUPS`): both pixels' groups by one LDM from x (r0, back to
     * the row's start after each pair), both weight rows by immediate offsets from the pair's row
     * (r2). That leaves r3 for the multipliers and no row loop. */
    "    .macro VMCU_GEMM2X2_K_GROUPS k, g\n"
    "    ldm r0!, {r8-r11}\n"
    "    ldr lr, [r2, #(\\k + 4 * \\g)]\n"
    "    VMCU_MAC2X2 r5, r7, (\\g == 0)\n"
    "    ldr lr, [r2, #(4 * \\g)]\n"
    "    VMCU_MAC2X2 r4, r6, (\\g == 0)\n"
    "    .if \\g + 1 < \\k / 4\n"
    "    VMCU_GEMM2X2_K_GROUPS \\k, (\\g + 1)\n"
    "    .endif\n"
    "    .endm\n"
    /* The same over rows the converter widened to int16 (vmcu_gemm2x2w_k<k>_...): both pixels'
     * inputs widened in order (vmcu_widen_s8_pair_natural), each row's group of four one LDRD, no
     * SXTB16: 11 instructions per group, not 15. */
    "    .macro VMCU_GEMM2X2W_K_GROUPS k, g\n"
    "    ldm r0!, {r8-r11}\n"
    "    ldrd ip, lr, [r2, #(2 * \\k + 8 * \\g)]\n"
    "    VMCU_SMLAD2X2 r5, r7, (\\g == 0)\n"
    "    ldrd ip, lr, [r2, #(8 * \\g)]\n"
    "    VMCU_SMLAD2X2 r4, r6, (\\g == 0)\n"
    "    .if \\g + 1 < \\k / 4\n"
    "    VMCU_GEMM2X2W_K_GROUPS \\k, (\\g + 1)\n"
    "    .endif\n"
    "    .endm\n"
    /* The same over paired rows (vmcu_gemm2x2p_k<k>_...): both rows' words by one LDRD into r3 and lr,
     * 14 instructions per group; the multipliers then wait in the frame (VMCU_GEMM2X2P_K). */
    "    .macro VMCU_GEMM2X2P_K_GROUPS k, g\n"
    "    ldm r0!, {r8-r11}\n"
    "    ldrd r3, lr, [r2, #(8 * \\g)]\n"
    "    VMCU_MAC2X2P (\\g == 0)\n"
    "    .if \\g + 1 < \\k / 4\n"
    "    VMCU_GEMM2X2P_K_GROUPS \\k, (\\g + 1)\n"
    "    .endif\n"
    "    .endm\n"
    /* One pixel's (vmcu_gemm1x2[w]_k<k>_...): its widened inputs (r0, in SXTB16's order) by immediate
     * offsets, so that x stays at the row's start; 11 instructions per group of four, 7 with int16 rows
     * (inputs widened in order). */
    "    .macro VMCU_GEMM1X2_K_GROUPS k, g\n"
    "    ldrd r6, r7, [r0, #(8 * \\g)]\n"
    "    ldr lr, [r2, #(\\k + 4 * \\g)]\n"
    "    sxtb16 ip, lr\n"
    "    sxtb16 lr, lr, ror #8\n"
    "    smlad r5, r6, ip, r5\n"
    "    smlad r5, r7, lr, r5\n"
    "    ldr lr, [r2, #(4 * \\g)]\n"
    "    sxtb16 ip, lr\n"
    "    sxtb16 lr, lr, ror #8\n"
    "    smlad r4, r6, ip, r4\n"
    "    smlad r4, r7, lr, r4\n"
    "    .if \\g + 1 < \\k / 4\n"
    "    VMCU_GEMM1X2_K_GROUPS \\k, (\\g + 1)\n"
    "    .endif\n"
    "    .endm\n"
    "    .macro VMCU_GEMM1X2P_K_GROUPS k, g\n"  /* paired rows: one LDRD (r8 free before the tail), 10 */
    "    ldrd r6, r7, [r0, #(8 * \\g)]\n"
    "    ldrd r8, lr, [r2, #(8 * \\g)]\n"
    "    VMCU_MAC1X2P r8\n"
    "    .if \\g + 1 < \\k / 4\n"
    "    VMCU_GEMM1X2P_K_GROUPS \\k, (\\g + 1)\n"
    "    .endif\n"
    "    .endm\n"
    "    .macro VMCU_GEMM1X2W_K_GROUPS k, g\n"
    "    ldrd r6, r7, [r0, #(8 * \\g)]\n"
    "    ldrd ip, lr, [r2, #(2 * \\k + 8 * \\g)]\n"
    "    smlad r5, r6, ip, r5\n"
    "    smlad r5, r7, lr, r5\n"
    "    ldrd ip, lr, [r2, #(8 * \\g)]\n"
    "    smlad r4, r6, ip, r4\n"
    "    smlad r4, r7, lr, r4\n"
    "    .if \\g + 1 < \\k / 4\n"
    "    VMCU_GEMM1X2W_K_GROUPS \\k, (\\g + 1)\n"
    "    .endif\n"
    "    .endm\n"
    /* The one-pixel pair's end: as VMCU_GEMM2X2_TAIL for pixel 0's two values (r4, r5), the shifts
     * in r6-r7 (the inputs' registers: r10-r11 stay the looped form's). */
    "    .macro VMCU_GEMM1X2_TAIL again\n"
    "    VMCU_GEMM_SHIFTS r6, r7\n"
    "    VMCU_NARROW r4, r8, r6\n"
    "    VMCU_NARROW r5, r9, r7\n"
    "    ldr ip, [sp, #8]\n"
    "    strb r4, [ip], #1\n"
    "    strb r5, [ip], #1\n"
    "    str ip, [sp, #8]\n"
    "    bne \\again\n"
    "    .endm\n"
    /* `groups` the row's unrolled groups, `row` bytes per weight; `tail` the pair's end, `rewind` whether
     * the groups step x (the two-pixel groups' LDM) so that it goes back to the row's start */
    "    .macro VMCU_GEMM2X2_K k, load, size, groups, row, tail=VMCU_GEMM2X2_TAIL, rewind=1\n"
    "    VMCU_GEMM2X2_FRAME 0\n"
    "    ldr r3, [r0, #16]\n"         /* multiplier */
    "    ldr r0, [r0]\n"              /* x */
    "7:\n"
    "    VMCU_GEMM_BIASES \\load, \\size\n"  /* pixel 1's accumulators start from them in the first group */
    "    \\groups \\k, 0\n"
    "    add r2, r2, #(2 * \\row * \\k)\n"  /* the next pair's row */
    "    .if \\rewind\n"
    "    sub r0, r0, #(4 * \\k)\n"  /* the inputs' start */
    "    .endif\n"
    "    ldrd r8, r9, [r3], #8\n"     /* the pair's multipliers */
    "    \\tail 7b\n"
    "    add sp, sp, #20\n"
    "    pop {r4-r11, pc}\n"
    "    .endm\n"
    /* The two-pixel tile over paired rows: r3 is its groups', so the multipliers wait in the frame
     * ([sp + 28], VMCU_GEMM_MULTIPLIERS). */
    "    .macro VMCU_GEMM2X2P_K k, load, size, groups, row\n"
    "    VMCU_GEMM2X2_FRAME 12\n"
    "    ldr r3, [r0, #16]\n"         /* multiplier */
    "    str r3, [sp, #28]\n"
    "    ldr r0, [r0]\n"              /* x */
    "6:\n"
    "    VMCU_GEMM_BIASES \\load, \\size\n"
    "    \\groups \\k, 0\n"
    "    add r2, r2, #(2 * \\k)\n"  /* the next pair */
    "    sub r0, r0, #(4 * \\k)\n"  /* the inputs' start */
    "    VMCU_GEMM_MULTIPLIERS r8, r9\n"
    "    VMCU_GEMM2X2_TAIL 6b\n"
    "    add sp, sp, #32\n"
    "    pop {r4-r11, pc}\n"
    "    .endm\n"
    /* The tile of one pixel: its groups address x by offsets, its tail stores one pixel's two values
     * (the same frame and tile; out_stride not read). */
    "    .macro VMCU_GEMM1X2_K k, load, size, groups, row\n"
    "    VMCU_GEMM2X2_K \\k, \\load, \\size, \\groups, \\row, VMCU_GEMM1X2_TAIL, 0\n"
    "    .endm\n"
    /* The forms of one row length and bias width: int8 rows and int16 rows (the `w` forms), for tiles of
     * two pixels and of one. */
    "    .macro VMCU_GEMM2X2_K_RUN k, bits, load, size\n"
    "    VMCU_GEMM2X2_K_FUNCTION vmcu_gemm2x2_k\\k\\()_narrow_b\\bits\\()_run, \\k, \\load, \\size, "
    "VMCU_GEMM2X2_K_GROUPS, 1\n"
    "    VMCU_GEMM2X2_K_FUNCTION vmcu_gemm2x2w_k\\k\\()_narrow_b\\bits\\()_run, \\k, \\load, \\size, "
    "VMCU_GEMM2X2W_K_GROUPS, 2\n"
    "    VMCU_GEMM2X2_K_FUNCTION vmcu_gemm1x2_k\\k\\()_narrow_b\\bits\\()_run, \\k, \\load, \\size, "
    "VMCU_GEMM1X2_K_GROUPS, 1, VMCU_GEMM1X2_K\n"
    "    VMCU_GEMM2X2_K_FUNCTION vmcu_gemm1x2w_k\\k\\()_narrow_b\\bits\\()_run, \\k, \\load, \\size, "
    "VMCU_GEMM1X2W_K_GROUPS, 2, VMCU_GEMM1X2_K\n"
    "    VMCU_GEMM2X2_K_FUNCTION vmcu_gemm2x2p_k\\k\\()_narrow_b\\bits\\()_run, \\k, \\load, \\size, "
    "VMCU_GEMM2X2P_K_GROUPS, 1, VMCU_GEMM2X2P_K\n"
    "    VMCU_GEMM2X2_K_FUNCTION vmcu_gemm1x2p_k\\k\\()_narrow_b\\bits\\()_run, \\k, \\load, \\size, "
    "VMCU_GEMM1X2P_K_GROUPS, 1, VMCU_GEMM1X2_K\n"
    "    .endm\n"
    "    .irp k, 8, 16, 24, 32, 40, 48, 64, 80, 96\n"  /* lower.dsp UNROLLED_ROWS */
    "    VMCU_GEMM2X2_K_RUN \\k, 16, ldrsh, 2\n"
    "    VMCU_GEMM2X2_K_RUN \\k, 32, ldr, 4\n"
    "    .endr\n"
    /* int16 rows only, for gathered stems' windows (lower.dsp INT16_ROWS) */
    "    .irp k, 12, 20, 28, 36\n"
    "    VMCU_GEMM2X2_K_FUNCTION vmcu_gemm2x2w_k\\k\\()_narrow_b16_run, \\k, ldrsh, 2, VMCU_GEMM2X2W_K_GROUPS, 2\n"
    "    VMCU_GEMM2X2_K_FUNCTION vmcu_gemm2x2w_k\\k\\()_narrow_b32_run, \\k, ldr, 4, VMCU_GEMM2X2W_K_GROUPS, 2\n"
    "    VMCU_GEMM2X2_K_FUNCTION vmcu_gemm1x2w_k\\k\\()_narrow_b16_run, \\k, ldrsh, 2, VMCU_GEMM1X2W_K_GROUPS, 2, "
    "VMCU_GEMM1X2_K\n"
    "    VMCU_GEMM2X2_K_FUNCTION vmcu_gemm1x2w_k\\k\\()_narrow_b32_run, \\k, ldr, 4, VMCU_GEMM1X2W_K_GROUPS, 2, "
    "VMCU_GEMM1X2_K\n"
    "    .endr\n"
    "    .global vmcu_gemm2x2_narrow_b16_run\n"
    "    .type vmcu_gemm2x2_narrow_b16_run, %function\n"
    "    .p2align 2\n"
    "    .thumb_func\n"
    "vmcu_gemm2x2_narrow_b16_run:\n"
    "    VMCU_GEMM2X2_NARROW 0, ldrsh, 2, VMCU_GEMM2X2_GROUP, 1\n"
    "    .size vmcu_gemm2x2_narrow_b16_run, . - vmcu_gemm2x2_narrow_b16_run\n"
    "    .global vmcu_gemm2x2_narrow_b32_run\n"
    "    .type vmcu_gemm2x2_narrow_b32_run, %function\n"
    "    .p2align 2\n"
    "    .thumb_func\n"
    "vmcu_gemm2x2_narrow_b32_run:\n"
    "    VMCU_GEMM2X2_NARROW 0, ldr, 4, VMCU_GEMM2X2_GROUP, 1\n"
    "    .size vmcu_gemm2x2_narrow_b32_run, . - vmcu_gemm2x2_narrow_b32_run\n"
    "    VMCU_GEMM2X2_K_FUNCTION vmcu_gemm1x2_narrow_b16_run, 0, ldrsh, 2, VMCU_GEMM1X2_GROUP, 1, VMCU_GEMM1X2_NARROW\n"
    "    VMCU_GEMM2X2_K_FUNCTION vmcu_gemm1x2_narrow_b32_run, 0, ldr, 4, VMCU_GEMM1X2_GROUP, 1, VMCU_GEMM1X2_NARROW\n"
    /* the looped forms over paired rows (kernels/paired_weights.py) */
    "    VMCU_GEMM2X2_K_FUNCTION vmcu_gemm2x2p_narrow_b16_run, 0, ldrsh, 2, VMCU_GEMM2X2P_GROUP, 0, "
    "VMCU_GEMM2X2_NARROW\n"
    "    VMCU_GEMM2X2_K_FUNCTION vmcu_gemm2x2p_narrow_b32_run, 0, ldr, 4, VMCU_GEMM2X2P_GROUP, 0, "
    "VMCU_GEMM2X2_NARROW\n"
    "    VMCU_GEMM2X2_K_FUNCTION vmcu_gemm1x2p_narrow_b16_run, 0, ldrsh, 2, VMCU_GEMM1X2P_GROUP, 0, "
    "VMCU_GEMM1X2_NARROW\n"
    "    VMCU_GEMM2X2_K_FUNCTION vmcu_gemm1x2p_narrow_b32_run, 0, ldr, 4, VMCU_GEMM1X2P_GROUP, 0, "
    "VMCU_GEMM1X2_NARROW\n"
    "    .purgem VMCU_GEMM2X2_K_RUN\n"
    "    .purgem VMCU_GEMM2X2_K\n"
    "    .purgem VMCU_GEMM2X2P_K\n"
    "    .purgem VMCU_GEMM2X2P_K_GROUPS\n"
    "    .purgem VMCU_GEMM1X2P_K_GROUPS\n"
    "    .purgem VMCU_GEMM2X2P_GROUP\n"
    "    .purgem VMCU_GEMM1X2P_GROUP\n"
    "    .purgem VMCU_MAC2X2P\n"
    "    .purgem VMCU_MAC1X2P\n"
    "    .purgem VMCU_GEMM1X2_K\n"
    "    .purgem VMCU_GEMM1X2_NARROW\n"
    "    .purgem VMCU_GEMM1X2_GROUP\n"
    "    .purgem VMCU_GEMM1X2_TAIL\n"
    "    .purgem VMCU_GEMM1X2W_K_GROUPS\n"
    "    .purgem VMCU_GEMM1X2_K_GROUPS\n"
    "    .purgem VMCU_GEMM2X2W_K_GROUPS\n"
    "    .purgem VMCU_GEMM2X2_K_GROUPS\n"
    "    .purgem VMCU_GEMM2X2_AT_END\n"
    "    .purgem VMCU_GEMM2X2_TAIL\n"
    "    .purgem VMCU_GEMM2X2_NARROW\n"
    "    .purgem VMCU_DOT2X2_ROW\n"
    "    .purgem VMCU_DOT1X2_AT_END\n"
    "    .purgem VMCU_DOT2X2_AT_END\n"
    "    .purgem VMCU_DOT1X2_GROUP\n"
    "    .purgem VMCU_GEMM2X2_GROUP\n"
    "    .purgem VMCU_DOT2X2_GROUP\n"
    "    .purgem VMCU_DOT2X2P_GROUP\n"
    "    .purgem VMCU_DOT1X2P_GROUP\n"
    "    .purgem VMCU_DOT_FUNCTION\n"
    "    .purgem VMCU_DOT2X2_RUN\n"
    "    .purgem VMCU_DOT2X4_RUN\n"
    "    .purgem VMCU_DOT1X2_RUN\n"
    VMCU_GEMM_DSP_PURGE
    "    .popsection\n");

#else
typedef int vmcu_dot_dsp_unused; /* ISO C: a translation unit declares something */
#endif
