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
 * loads, four weight loads, eight VMLADAVA). Each row is unrolled (k in VMCU_GEMM_MVE_K_DECLARE);
 * the last 8 inputs of a row of 8 + 16n load under the predicate VCTP sets once on entry (inputs
 * past it load as 0, so the VMLADAVA need none; weights past it are not read). 16-bit biases are
 * added after the row as one widened vector, the row's first VMLADAV starting the sums at 0.
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
    "    .macro VMCU_MVE_GROUP k, op\n"
    "    vldrb.u8 q1, [r1, #\\k]\n"
    "    vldrb.u8 q0, [r1], #16\n"
    "    vldrb.u8 q2, [r3], #16\n"
    "    \\op\\().s8 r0, q0, q2\n"
    "    \\op\\().s8 r8, q1, q2\n"
    "    vldrb.u8 q2, [r5], #16\n"
    "    \\op\\().s8 r2, q0, q2\n"
    "    \\op\\().s8 r10, q1, q2\n"
    "    vldrb.u8 q2, [r7], #16\n"
    "    \\op\\().s8 r4, q0, q2\n"
    "    \\op\\().s8 r12, q1, q2\n"
    "    vldrb.u8 q2, [r9], #16\n"
    "    \\op\\().s8 r6, q0, q2\n"
    "    \\op\\().s8 lr, q1, q2\n"
    "    .endm\n"
    /* A row's last 8 inputs, under the predicate: the loads step 8, so the rows' pointers end at
     * the next row's start as after whole groups. */
    "    .macro VMCU_MVE_TAIL k, op\n"
    "    vpstt\n"
    "    vldrbt.u8 q1, [r1, #\\k]\n"
    "    vldrbt.u8 q0, [r1], #8\n"
    "    vpstttt\n"
    "    vldrbt.u8 q2, [r3], #8\n"
    "    vldrbt.u8 q3, [r5], #8\n"
    "    vldrbt.u8 q4, [r7], #8\n"
    "    vldrbt.u8 q5, [r9], #8\n"
    "    \\op\\().s8 r0, q0, q2\n"
    "    \\op\\().s8 r8, q1, q2\n"
    "    \\op\\().s8 r2, q0, q3\n"
    "    \\op\\().s8 r10, q1, q3\n"
    "    \\op\\().s8 r4, q0, q4\n"
    "    \\op\\().s8 r12, q1, q4\n"
    "    \\op\\().s8 r6, q0, q5\n"
    "    \\op\\().s8 lr, q1, q5\n"
    "    .endm\n"
    "    .macro VMCU_MVE_ROW k, g, op\n"
    "    .if \\g + 16 <= \\k\n"
    "    VMCU_MVE_GROUP \\k, \\op\n"
    "    VMCU_MVE_ROW \\k, (\\g + 16), vmladava\n"
    "    .elseif \\g < \\k\n"
    "    VMCU_MVE_TAIL \\k, \\op\n"
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
    /* A function's start: its section (one per function: the link keeps only those a model calls),
     * the saved registers, `frame` bytes of frame holding the tile's multipliers, shifts, outputs,
     * out_stride, 2 * offset + 1 and groups from [sp], and the activation's bounds in q6, q7; the
     * tile's pointer stays in r0. */
    "    .macro VMCU_MVE_BEGIN name, frame\n"
    "    .pushsection .text.\\name,\"ax\",%progbits\n"
    "    .global \\name\n"
    "    .type \\name, %function\n"
    "    .p2align 2\n"
    "    .thumb_func\n"
    "\\name:\n"
    "    push {r4-r11, lr}\n"
    "    vpush {d8-d15}\n"
    "    sub sp, sp, #\\frame\n"
    "    ldrd r2, r3, [r0, #12]\n"     /* multipliers, shifts */
    "    strd r2, r3, [sp]\n"
    "    ldrd r2, r3, [r0, #24]\n"     /* out, out_stride */
    "    strd r2, r3, [sp, #8]\n"
    "    ldr r2, [r0, #20]\n"          /* 2 * offset + 1 */
    "    ldr r3, [r0, #32]\n"          /* groups */
    "    strd r2, r3, [sp, #16]\n"
    "    ldrd r2, r3, [r0, #36]\n"     /* act_min, act_max */
    "    vdup.32 q6, r2\n"
    "    vdup.32 q7, r3\n"
    "    .endm\n"
    "    .macro VMCU_MVE_END name, frame\n"
    "    add sp, sp, #\\frame\n"
    "    vpop {d8-d15}\n"
    "    pop {r4-r11, pc}\n"
    "    .size \\name, . - \\name\n"
    "    .popsection\n"
    "    .endm\n"
    /* A group's end: both pixels' sums (`v0`, `v1`) requantized with the frame's constants, loaded
     * into the registers named (ascending, as LDM takes them), stored, the frame's pointers stepped
     * to the next group, and back to 1 while groups are left. */
    "    .macro VMCU_MVE_NEXT_GROUP v0, v1, shift, tmp, m, s, out, stride, off2, groups\n"
    "    ldm sp, {\\m, \\s, \\out, \\stride, \\off2, \\groups}\n"
    "    vldrw.u32 q2, [\\m], #16\n"
    "    vshr.u32 q2, q2, #1\n"
    "    vldrb.s32 \\shift, [\\s], #4\n"
    "    vneg.s32 \\shift, \\shift\n"
    "    add \\stride, \\out, \\stride\n"   /* pixel 1's outputs (VSTRB.32 takes a low register) */
    "    VMCU_MVE_REQUANTIZE \\v0, \\out, \\shift, \\tmp, \\off2\n"
    "    VMCU_MVE_REQUANTIZE \\v1, \\stride, \\shift, \\tmp, \\off2\n"
    "    adds \\out, \\out, #4\n"
    "    stm sp, {\\m, \\s, \\out}\n"
    "    subs \\groups, \\groups, #1\n"
    "    str \\groups, [sp, #20]\n"
    "    bne 1b\n"
    "    .endm\n"
    /* vmcu_gemm_mve_k<k>_b<bits>_run: 32-bit biases start both pixels' sums (r0, r2, r4, r6 and r8,
     * r10, r12, lr), 16-bit ones are added after the row (`first` the row's first operation); r11
     * steps to the next group's biases. */
    "    .macro VMCU_MVE_GEMM k, bits, first\n"
    "    VMCU_MVE_BEGIN vmcu_gemm_mve_k\\k\\()_b\\bits\\()_run, 24\n"
    "    ldrd r1, r9, [r0]\n"          /* x, the first group's first row */
    "    ldr r11, [r0, #8]\n"          /* biases */
    "    .if \\k % 16\n"
    "    movs r2, #(\\k % 16)\n"
    "    vctp.8 r2\n"
    "    .endif\n"
    "1:\n"
    "    .if \\bits == 32\n"
    "    ldm r11!, {r0, r2, r4, r6}\n"
    "    ldmdb r11, {r8, r10, r12, lr}\n"
    "    .endif\n"
    "    mov r3, r9\n"
    "    add r5, r9, #\\k\n"
    "    add r7, r9, #(2 * \\k)\n"
    "    add r9, r9, #(3 * \\k)\n"
    "    VMCU_MVE_ROW \\k, 0, \\first\n"
    "    sub r1, r1, #\\k\n"          /* the inputs' start again */
    "    vmov q0[2], q0[0], r0, r4\n"   /* r0 to lane 0, r4 to lane 2: Rt goes to the second lane named */
    "    vmov q0[3], q0[1], r2, r6\n"
    "    vmov q1[2], q1[0], r8, r12\n"
    "    vmov q1[3], q1[1], r10, lr\n"
    "    .if \\bits == 16\n"
    "    mov r3, r11\n"
    "    vldrh.s32 q5, [r3]\n"          /* the four biases, widened (VLDRH.S32 takes a low register) */
    "    adds r11, r11, #8\n"
    "    vadd.i32 q0, q0, q5\n"
    "    vadd.i32 q1, q1, q5\n"
    "    .endif\n"
    "    VMCU_MVE_NEXT_GROUP q0, q1, q3, q4, r0, r2, r4, r6, r8, r10\n"
    "    VMCU_MVE_END vmcu_gemm_mve_k\\k\\()_b\\bits\\()_run, 24\n"
    "    .endm\n"
    /* The wide rows' group of 16 inputs: pixel 1's through its own pointer (r3), the rows r5, r7,
     * r9, r11 (the biases' pointer in the frame). */
    "    .macro VMCU_MVE_WIDE_GROUP op\n"
    "    vldrb.u8 q0, [r1], #16\n"
    "    vldrb.u8 q1, [r3], #16\n"
    "    vldrb.u8 q2, [r5], #16\n"
    "    \\op\\().s8 r0, q0, q2\n"
    "    \\op\\().s8 r8, q1, q2\n"
    "    vldrb.u8 q2, [r7], #16\n"
    "    \\op\\().s8 r2, q0, q2\n"
    "    \\op\\().s8 r10, q1, q2\n"
    "    vldrb.u8 q2, [r9], #16\n"
    "    \\op\\().s8 r4, q0, q2\n"
    "    \\op\\().s8 r12, q1, q2\n"
    "    vldrb.u8 q2, [r11], #16\n"
    "    \\op\\().s8 r6, q0, q2\n"
    "    \\op\\().s8 lr, q1, q2\n"
    "    .endm\n"
    "    .macro VMCU_MVE_WIDE_TAIL op\n"
    "    vpstt\n"
    "    vldrbt.u8 q0, [r1], #8\n"
    "    vldrbt.u8 q1, [r3], #8\n"
    "    vpstttt\n"
    "    vldrbt.u8 q2, [r5], #8\n"
    "    vldrbt.u8 q3, [r7], #8\n"
    "    vldrbt.u8 q4, [r9], #8\n"
    "    vldrbt.u8 q5, [r11], #8\n"
    "    \\op\\().s8 r0, q0, q2\n"
    "    \\op\\().s8 r8, q1, q2\n"
    "    \\op\\().s8 r2, q0, q3\n"
    "    \\op\\().s8 r10, q1, q3\n"
    "    \\op\\().s8 r4, q0, q4\n"
    "    \\op\\().s8 r12, q1, q4\n"
    "    \\op\\().s8 r6, q0, q5\n"
    "    \\op\\().s8 lr, q1, q5\n"
    "    .endm\n"
    "    .macro VMCU_MVE_WIDE_ROW k, g, op\n"
    "    .if \\g + 16 <= \\k\n"
    "    VMCU_MVE_WIDE_GROUP \\op\n"
    "    VMCU_MVE_WIDE_ROW \\k, (\\g + 16), vmladava\n"
    "    .elseif \\g < \\k\n"
    "    VMCU_MVE_WIDE_TAIL \\op\n"
    "    .endif\n"
    "    .endm\n"
    /* vmcu_gemm_mve_k<k>_b<bits>_run for rows past VLDRB's reach (k > 96): as the narrow one, pixel 1's
     * inputs x_stride on through their own pointer, the biases' pointer at [sp + 24]. */
    "    .macro VMCU_MVE_GEMM_WIDE k, bits, first\n"
    "    VMCU_MVE_BEGIN vmcu_gemm_mve_k\\k\\()_b\\bits\\()_run, 32\n"
    "    ldr r2, [r0, #8]\n"           /* biases */
    "    str r2, [sp, #24]\n"
    "    ldrd r1, r11, [r0]\n"         /* x, the first group's first row */
    "    ldr r3, [r0, #48]\n"          /* x_stride */
    "    add r3, r1, r3\n"
    "    .if \\k % 16\n"
    "    movs r2, #(\\k % 16)\n"
    "    vctp.8 r2\n"
    "    .endif\n"
    "1:\n"
    "    .if \\bits == 32\n"
    "    ldr r12, [sp, #24]\n"
    "    ldm r12!, {r0, r2, r4, r6}\n"
    "    str r12, [sp, #24]\n"
    "    ldmdb r12, {r8, r10, r12, lr}\n"
    "    .endif\n"
    "    mov r5, r11\n"
    "    add r7, r11, #\\k\n"
    "    add r9, r11, #(2 * \\k)\n"
    "    add r11, r11, #(3 * \\k)\n"
    "    VMCU_MVE_WIDE_ROW \\k, 0, \\first\n"
    "    sub r1, r1, #\\k\n"          /* both pixels' inputs' start again */
    "    sub r3, r3, #\\k\n"
    "    vmov q0[2], q0[0], r0, r4\n"
    "    vmov q0[3], q0[1], r2, r6\n"
    "    vmov q1[2], q1[0], r8, r12\n"
    "    vmov q1[3], q1[1], r10, lr\n"
    "    .if \\bits == 16\n"
    "    ldr r5, [sp, #24]\n"
    "    vldrh.s32 q5, [r5], #8\n"
    "    str r5, [sp, #24]\n"
    "    vadd.i32 q0, q0, q5\n"
    "    vadd.i32 q1, q1, q5\n"
    "    .endif\n"
    "    VMCU_MVE_NEXT_GROUP q0, q1, q3, q4, r0, r2, r4, r6, r8, r10\n"
    "    VMCU_MVE_END vmcu_gemm_mve_k\\k\\()_b\\bits\\()_run, 32\n"
    "    .endm\n"
    /* Rows past 96 inputs: a multiple of 8 up to 128, of 16 up to 512 (MVE_WIDE_ROWS in lower.helium). */
    "    .irp k, 104, 112, 120, 128, 144, 160, 176, 192, 208, 224, 240, 256, 272, 288, 304, 320, "
    "336, 352, 368, 384, 400, 416, 432, 448, 464, 480, 496, 512\n"
    "    VMCU_MVE_GEMM_WIDE \\k, 16, vmladav\n"
    "    VMCU_MVE_GEMM_WIDE \\k, 32, vmladava\n"
    "    .endr\n"
    /* Pass `c` (0 or 1) of a group of any row length (r10): rows c and c + 2 of the group (from r9)
     * against both pixels (from r8, pixel 1 r12 on), the sums starting from those channels' biases
     * (r11, `bits` wide) in r0, r2 (pixel 0) and r4, r6 (pixel 1), a tail-predicated loop (DLSTP) of
     * 16 inputs a turn, the last turn's lanes past the row neither loaded nor added; then the sums
     * into lanes c and c + 2 of pixel 0's vector (q3) and pixel 1's (q4). */
    "    .macro VMCU_MVE_PASS c, bits\n"
    "    .if \\bits == 32\n"
    "    ldr r0, [r11, #(4 * \\c)]\n"
    "    ldr r2, [r11, #(4 * \\c + 8)]\n"
    "    .else\n"
    "    ldrsh r0, [r11, #(2 * \\c)]\n"
    "    ldrsh r2, [r11, #(2 * \\c + 4)]\n"
    "    .endif\n"
    "    mov r4, r0\n"
    "    mov r6, r2\n"
    "    mov r1, r8\n"
    "    add r3, r8, r12\n"
    "    .if \\c\n"
    "    add r5, r9, r10\n"
    "    .else\n"
    "    mov r5, r9\n"
    "    .endif\n"
    "    add r7, r5, r10, lsl #1\n"
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
    "    vmov q3[(\\c + 2)], q3[\\c], r0, r2\n"
    "    vmov q4[(\\c + 2)], q4[\\c], r4, r6\n"
    "    .endm\n"
    /* vmcu_gemm_mve_b<bits>_run, any row length: a group's channels in two passes of two rows each.
     * r8 the inputs, r9 the group's first row, r10 the length, r11 the biases, r12 the pixels'
     * distance. */
    "    .macro VMCU_MVE_GEMM_ANY bits\n"
    "    VMCU_MVE_BEGIN vmcu_gemm_mve_b\\bits\\()_run, 24\n"
    "    ldrd r8, r9, [r0]\n"          /* x, the first group's first row */
    "    ldr r11, [r0, #8]\n"          /* biases */
    "    ldrd r10, r12, [r0, #44]\n"   /* len, x_stride */
    "1:\n"
    "    VMCU_MVE_PASS 0, \\bits\n"
    "    VMCU_MVE_PASS 1, \\bits\n"
    "    adds r11, r11, #(\\bits / 2)\n" /* the next group's biases */
    "    add r9, r9, r10, lsl #2\n"     /* the next group's first row */
    "    VMCU_MVE_NEXT_GROUP q3, q4, q5, q0, r0, r1, r2, r3, r4, r5\n"
    "    VMCU_MVE_END vmcu_gemm_mve_b\\bits\\()_run, 24\n"
    "    .endm\n"
    "    VMCU_MVE_GEMM_ANY 16\n"
    "    VMCU_MVE_GEMM_ANY 32\n"
    "    VMCU_MVE_GEMM 8, 16, vmladav\n"
    "    VMCU_MVE_GEMM 8, 32, vmladava\n"
    "    VMCU_MVE_GEMM 16, 16, vmladav\n"
    "    VMCU_MVE_GEMM 16, 32, vmladava\n"
    "    VMCU_MVE_GEMM 24, 16, vmladav\n"
    "    VMCU_MVE_GEMM 24, 32, vmladava\n"
    "    VMCU_MVE_GEMM 32, 16, vmladav\n"
    "    VMCU_MVE_GEMM 32, 32, vmladava\n"
    "    VMCU_MVE_GEMM 40, 16, vmladav\n"
    "    VMCU_MVE_GEMM 40, 32, vmladava\n"
    "    VMCU_MVE_GEMM 48, 16, vmladav\n"
    "    VMCU_MVE_GEMM 48, 32, vmladava\n"
    "    VMCU_MVE_GEMM 64, 16, vmladav\n"
    "    VMCU_MVE_GEMM 64, 32, vmladava\n"
    "    VMCU_MVE_GEMM 80, 16, vmladav\n"
    "    VMCU_MVE_GEMM 80, 32, vmladava\n"
    "    VMCU_MVE_GEMM 96, 16, vmladav\n"
    "    VMCU_MVE_GEMM 96, 32, vmladava\n"
    "    .purgem VMCU_MVE_GEMM_WIDE\n"
    "    .purgem VMCU_MVE_WIDE_ROW\n"
    "    .purgem VMCU_MVE_WIDE_TAIL\n"
    "    .purgem VMCU_MVE_WIDE_GROUP\n"
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
