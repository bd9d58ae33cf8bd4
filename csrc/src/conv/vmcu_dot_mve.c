/*
 * The Helium (MVE) GEMM loop over a tile of two pixels, four channels at a time, out of line
 * (Cortex-M55 and other MVE cores, GCC-compatible compilers): see vmcu_gemm_mve_tile in vmcu_dsp.h.
 */
#include "vmcu/vmcu_dsp.h"

#if VMCU_MVE_GEMM_RUN

/*
 * Written in assembly because VMLADAVA adds into an even core register, and a group's eight sums
 * (two pixels by four channels) take all eight of them (r0, r2, ..., r12, lr): the odd ones are the
 * pointers, both pixels' inputs through one (r1: pixel 0 at [r1], pixel 1 k bytes on, the immediate
 * reach of VLDRB) and one per weight row (r3, r5, r7, r9), r11 the biases. GCC, given the same loop
 * in C, keeps neither in registers: about 32 instructions per 16 inputs instead of 14 (two input
 * loads, four weight loads, eight VMLADAVA). Each row is unrolled (k in VMCU_MVE_GEMM_K_DECLARE);
 * the last 8 inputs of a row of 8 + 16n load under the predicate VCTP sets once on entry (inputs
 * past it load as 0, so the VMLADAVA need none; weights past it are not read).
 *
 * After a group's row the eight sums move into two vectors (pixel 0 in q0, pixel 1 in q1, channel c
 * in lane c) and are requantized as vmcu_requantize_unclamped_mve's narrow form does: VQRDMULH by
 * the multiplier m (the table's m2 = 2m - 2^32 shifted right once), the sign added, VSHL by -(r - 1),
 * 2 * offset + 1 added, shifted right once, clamped to the activation's bounds (q6, q7) and stored
 * as bytes.
 * The frame at [sp]: the multipliers, shifts, outputs, out_stride, 2 * offset + 1, groups left.
 */
__asm__(
    "    .syntax unified\n"
    "    .thumb\n"
    /* One group of 16 inputs of both pixels against the four rows. */
    "    .macro VMCU_MVE_GROUP k\n"
    "    vldrb.u8 q1, [r1, #\\k]\n"
    "    vldrb.u8 q0, [r1], #16\n"
    "    vldrb.u8 q2, [r3], #16\n"
    "    vmladava.s8 r0, q0, q2\n"
    "    vmladava.s8 r8, q1, q2\n"
    "    vldrb.u8 q2, [r5], #16\n"
    "    vmladava.s8 r2, q0, q2\n"
    "    vmladava.s8 r10, q1, q2\n"
    "    vldrb.u8 q2, [r7], #16\n"
    "    vmladava.s8 r4, q0, q2\n"
    "    vmladava.s8 r12, q1, q2\n"
    "    vldrb.u8 q2, [r9], #16\n"
    "    vmladava.s8 r6, q0, q2\n"
    "    vmladava.s8 lr, q1, q2\n"
    "    .endm\n"
    /* A row's last 8 inputs, under the predicate: the loads step 8, so the rows' pointers end at
     * the next row's start as after whole groups. */
    "    .macro VMCU_MVE_TAIL k\n"
    "    vpstt\n"
    "    vldrbt.u8 q1, [r1, #\\k]\n"
    "    vldrbt.u8 q0, [r1], #8\n"
    "    vpstttt\n"
    "    vldrbt.u8 q2, [r3], #8\n"
    "    vldrbt.u8 q3, [r5], #8\n"
    "    vldrbt.u8 q4, [r7], #8\n"
    "    vldrbt.u8 q5, [r9], #8\n"
    "    vmladava.s8 r0, q0, q2\n"
    "    vmladava.s8 r8, q1, q2\n"
    "    vmladava.s8 r2, q0, q3\n"
    "    vmladava.s8 r10, q1, q3\n"
    "    vmladava.s8 r4, q0, q4\n"
    "    vmladava.s8 r12, q1, q4\n"
    "    vmladava.s8 r6, q0, q5\n"
    "    vmladava.s8 lr, q1, q5\n"
    "    .endm\n"
    "    .macro VMCU_MVE_ROW k, g\n"
    "    .if \\g + 16 <= \\k\n"
    "    VMCU_MVE_GROUP \\k\n"
    "    VMCU_MVE_ROW \\k, (\\g + 16)\n"
    "    .elseif \\g < \\k\n"
    "    VMCU_MVE_TAIL \\k\n"
    "    .endif\n"
    "    .endm\n"
    /* A pixel's four sums (`v`) requantized, clamped and stored at `out`: q2 the multipliers, `shift`
     * the shifts' negation, `off2` 2 * offset + 1, `tmp` a scratch vector, q6 and q7 the bounds. */
    "    .macro VMCU_MVE_REQUANTIZE v, out, shift, tmp, off2\n"
    "    vqrdmulh.s32 \\v, \\v, q2\n"
    "    vshr.s32 \\tmp, \\v, #31\n"
    "    vadd.i32 \\v, \\v, \\tmp\n"
    "    vshl.s32 \\v, \\v, \\shift\n"
    "    vadd.i32 \\v, \\v, \\off2\n"
    "    vshr.s32 \\v, \\v, #1\n"
    "    vmax.s32 \\v, \\v, q6\n"
    "    vmin.s32 \\v, \\v, q7\n"
    "    vstrb.32 \\v, [\\out]\n"
    "    .endm\n"
    /* vmcu_gemm_mve_k<k>_b<bits>_run: `bias` loads a group's four biases into r0, r2, r4, r6 and
     * pixel 1's sums (r8, r10, r12, lr), r11 stepping to the next group's. */
    "    .macro VMCU_MVE_GEMM k, bits\n"
    "    .pushsection .text.vmcu_gemm_mve_k\\k\\()_b\\bits\\()_run,\"ax\",%progbits\n"
    "    .global vmcu_gemm_mve_k\\k\\()_b\\bits\\()_run\n"
    "    .type vmcu_gemm_mve_k\\k\\()_b\\bits\\()_run, %function\n"
    "    .p2align 2\n"
    "    .thumb_func\n"
    "vmcu_gemm_mve_k\\k\\()_b\\bits\\()_run:\n"
    "    push {r4-r11, lr}\n"
    "    vpush {d8-d15}\n"
    "    sub sp, sp, #24\n"
    "    ldrd r2, r3, [r0, #12]\n"     /* multipliers, shifts */
    "    strd r2, r3, [sp]\n"
    "    ldrd r2, r3, [r0, #24]\n"     /* out, out_stride */
    "    strd r2, r3, [sp, #8]\n"
    "    ldr r2, [r0, #20]\n"          /* 2 * offset + 1 */
    "    ldr r3, [r0, #32]\n"          /* groups */
    "    strd r2, r3, [sp, #16]\n"
    "    ldrd r1, r9, [r0]\n"          /* x, the first group's first row */
    "    ldr r11, [r0, #8]\n"          /* biases */
    "    ldrd r2, r3, [r0, #36]\n"     /* act_min, act_max */
    "    vdup.32 q6, r2\n"
    "    vdup.32 q7, r3\n"
    "    .if \\k % 16\n"
    "    movs r2, #(\\k % 16)\n"
    "    vctp.8 r2\n"
    "    .endif\n"
    "1:\n"
    "    .if \\bits == 32\n"
    "    ldm r11!, {r0, r2, r4, r6}\n"
    "    ldmdb r11, {r8, r10, r12, lr}\n"
    "    .else\n"
    "    ldrsh r0, [r11], #2\n"
    "    ldrsh r2, [r11], #2\n"
    "    ldrsh r4, [r11], #2\n"
    "    ldrsh r6, [r11], #2\n"
    "    mov r8, r0\n"
    "    mov r10, r2\n"
    "    mov r12, r4\n"
    "    mov lr, r6\n"
    "    .endif\n"
    "    mov r3, r9\n"
    "    add r5, r9, #\\k\n"
    "    add r7, r9, #(2 * \\k)\n"
    "    add r9, r9, #(3 * \\k)\n"
    "    VMCU_MVE_ROW \\k, 0\n"
    "    sub r1, r1, #\\k\n"          /* the inputs' start again */
    "    vmov q0[2], q0[0], r0, r4\n"   /* r0 to lane 0, r4 to lane 2: Rt goes to the second lane named */
    "    vmov q0[3], q0[1], r2, r6\n"
    "    vmov q1[2], q1[0], r8, r12\n"
    "    vmov q1[3], q1[1], r10, lr\n"
    "    ldm sp, {r0, r2, r4, r6, r8, r10}\n"
    "    vldrw.u32 q2, [r0], #16\n"
    "    vshr.u32 q2, q2, #1\n"
    "    vldrb.s32 q3, [r2], #4\n"
    "    vneg.s32 q3, q3\n"
    "    add r6, r4, r6\n"            /* pixel 1's outputs (VSTRB.32 takes a low register) */
    "    VMCU_MVE_REQUANTIZE q0, r4, q3, q4, r8\n"
    "    VMCU_MVE_REQUANTIZE q1, r6, q3, q4, r8\n"
    "    adds r4, r4, #4\n"
    "    stm sp, {r0, r2, r4}\n"
    "    subs r10, r10, #1\n"
    "    str r10, [sp, #20]\n"
    "    bne 1b\n"
    "    add sp, sp, #24\n"
    "    vpop {d8-d15}\n"
    "    pop {r4-r11, pc}\n"
    "    .size vmcu_gemm_mve_k\\k\\()_b\\bits\\()_run, . - vmcu_gemm_mve_k\\k\\()_b\\bits\\()_run\n"
    "    .popsection\n"
    "    .endm\n"
    /* A pass of a group's row length (r10) over two of its rows (r5, r7) for both pixels (r1, r3)
     * into r0, r2 (pixel 0) and r4, r6 (pixel 1): a tail-predicated loop (DLSTP), 16 inputs a turn,
     * the last turn's lanes past the row neither loaded nor added. */
    "    .macro VMCU_MVE_PASS\n"
    "    dlstp.8 lr, r10\n"
    "2:\n"
    "    vldrb.u8 q0, [r1], #16\n"
    "    vldrb.u8 q1, [r3], #16\n"
    "    vldrb.u8 q2, [r5], #16\n"
    "    vmladava.s8 r0, q0, q2\n"
    "    vmladava.s8 r4, q1, q2\n"
    "    vldrb.u8 q2, [r7], #16\n"
    "    vmladava.s8 r2, q0, q2\n"
    "    vmladava.s8 r6, q1, q2\n"
    "    letp lr, 2b\n"
    "    .endm\n"
    /* vmcu_gemm_mve_b<bits>_run, any row length: a group's channels in two passes of two rows each,
     * 0 and 2 then 1 and 3, whose sums land in lanes 0 and 2, then 1 and 3, of pixel 0's vector (q3)
     * and pixel 1's (q4). r8 the inputs, r9 the group's first row, r10 the length, r11 the biases,
     * r12 the pixels' distance. */
    "    .macro VMCU_MVE_GEMM_ANY bits\n"
    "    .pushsection .text.vmcu_gemm_mve_b\\bits\\()_run,\"ax\",%progbits\n"
    "    .global vmcu_gemm_mve_b\\bits\\()_run\n"
    "    .type vmcu_gemm_mve_b\\bits\\()_run, %function\n"
    "    .p2align 2\n"
    "    .thumb_func\n"
    "vmcu_gemm_mve_b\\bits\\()_run:\n"
    "    push {r4-r11, lr}\n"
    "    vpush {d8-d15}\n"
    "    sub sp, sp, #24\n"
    "    ldrd r2, r3, [r0, #12]\n"     /* multipliers, shifts */
    "    strd r2, r3, [sp]\n"
    "    ldrd r2, r3, [r0, #24]\n"     /* out, out_stride */
    "    strd r2, r3, [sp, #8]\n"
    "    ldr r2, [r0, #20]\n"          /* 2 * offset + 1 */
    "    ldr r3, [r0, #32]\n"          /* groups */
    "    strd r2, r3, [sp, #16]\n"
    "    ldrd r8, r9, [r0]\n"          /* x, the first group's first row */
    "    ldr r11, [r0, #8]\n"          /* biases */
    "    ldrd r10, r12, [r0, #44]\n"   /* len, x_stride */
    "    ldrd r2, r3, [r0, #36]\n"     /* act_min, act_max */
    "    vdup.32 q6, r2\n"
    "    vdup.32 q7, r3\n"
    "1:\n"
    "    .if \\bits == 32\n"
    "    ldr r0, [r11]\n"
    "    ldr r2, [r11, #8]\n"
    "    .else\n"
    "    ldrsh r0, [r11]\n"
    "    ldrsh r2, [r11, #4]\n"
    "    .endif\n"
    "    mov r4, r0\n"
    "    mov r6, r2\n"
    "    mov r1, r8\n"
    "    add r3, r8, r12\n"
    "    mov r5, r9\n"
    "    add r7, r9, r10, lsl #1\n"
    "    VMCU_MVE_PASS\n"
    "    vmov q3[2], q3[0], r0, r2\n"
    "    vmov q4[2], q4[0], r4, r6\n"
    "    .if \\bits == 32\n"
    "    ldr r0, [r11, #4]\n"
    "    ldr r2, [r11, #12]\n"
    "    adds r11, r11, #16\n"
    "    .else\n"
    "    ldrsh r0, [r11, #2]\n"
    "    ldrsh r2, [r11, #6]\n"
    "    adds r11, r11, #8\n"
    "    .endif\n"
    "    mov r4, r0\n"
    "    mov r6, r2\n"
    "    mov r1, r8\n"
    "    add r3, r8, r12\n"
    "    add r5, r9, r10\n"
    "    add r7, r5, r10, lsl #1\n"
    "    VMCU_MVE_PASS\n"
    "    vmov q3[3], q3[1], r0, r2\n"
    "    vmov q4[3], q4[1], r4, r6\n"
    "    add r9, r9, r10, lsl #2\n"     /* the next group's first row */
    "    ldm sp, {r0, r1, r2, r3, r4, r5}\n"
    "    vldrw.u32 q2, [r0], #16\n"
    "    vshr.u32 q2, q2, #1\n"
    "    vldrb.s32 q5, [r1], #4\n"
    "    vneg.s32 q5, q5\n"
    "    add r3, r2, r3\n"
    "    VMCU_MVE_REQUANTIZE q3, r2, q5, q0, r4\n"
    "    VMCU_MVE_REQUANTIZE q4, r3, q5, q0, r4\n"
    "    adds r2, r2, #4\n"
    "    stm sp, {r0, r1, r2}\n"
    "    subs r5, r5, #1\n"
    "    str r5, [sp, #20]\n"
    "    bne 1b\n"
    "    add sp, sp, #24\n"
    "    vpop {d8-d15}\n"
    "    pop {r4-r11, pc}\n"
    "    .size vmcu_gemm_mve_b\\bits\\()_run, . - vmcu_gemm_mve_b\\bits\\()_run\n"
    "    .popsection\n"
    "    .endm\n"
    "    VMCU_MVE_GEMM_ANY 16\n"
    "    VMCU_MVE_GEMM_ANY 32\n"
    "    VMCU_MVE_GEMM 8, 16\n"
    "    VMCU_MVE_GEMM 8, 32\n"
    "    VMCU_MVE_GEMM 16, 16\n"
    "    VMCU_MVE_GEMM 16, 32\n"
    "    VMCU_MVE_GEMM 24, 16\n"
    "    VMCU_MVE_GEMM 24, 32\n"
    "    VMCU_MVE_GEMM 32, 16\n"
    "    VMCU_MVE_GEMM 32, 32\n"
    "    VMCU_MVE_GEMM 40, 16\n"
    "    VMCU_MVE_GEMM 40, 32\n"
    "    VMCU_MVE_GEMM 48, 16\n"
    "    VMCU_MVE_GEMM 48, 32\n"
    "    VMCU_MVE_GEMM 64, 16\n"
    "    VMCU_MVE_GEMM 64, 32\n"
    "    VMCU_MVE_GEMM 80, 16\n"
    "    VMCU_MVE_GEMM 80, 32\n"
    "    VMCU_MVE_GEMM 96, 16\n"
    "    VMCU_MVE_GEMM 96, 32\n"
    "    .purgem VMCU_MVE_GEMM_ANY\n"
    "    .purgem VMCU_MVE_PASS\n"
    "    .purgem VMCU_MVE_GEMM\n"
    "    .purgem VMCU_MVE_REQUANTIZE\n"
    "    .purgem VMCU_MVE_ROW\n"
    "    .purgem VMCU_MVE_TAIL\n"
    "    .purgem VMCU_MVE_GROUP\n");

#else
typedef int vmcu_dot_mve_unused; /* ISO C: a translation unit declares something */
#endif
