/*
 * The int16 element-wise routines on runs of elements behind plain pointers, shared by the single
 * kernels (vmcu_binary_s16.c, vmcu_unary_s16.c, vmcu_sigmoid_s16.c) and the group kernel that runs
 * them block by block (vmcu_group_s16.c), and the checks of their params.
 *
 * Each routine reads element i of its operands before it writes element i of `out`, and touches no
 * other element at that point, so `out` may be one of its operands (the same pointer).
 */
#ifndef VMCU_ELEMENTWISE_S16_H
#define VMCU_ELEMENTWISE_S16_H

#include "vmcu/vmcu_types.h"

/* int16 ADD, SUB or MUL of two same-shaped runs of `n` elements (no constant operand). */
void vmcu_binary_s16_block(const vmcu_binary_s16_params *p, const int16_t *a, const int16_t *b, int16_t *out,
                           int32_t n);

/* int16 RELU, RELU6 or LEAKY_RELU of a run of `n` elements. */
void vmcu_unary_s16_block(const vmcu_unary_s16_params *p, const int16_t *in, int16_t *out, int32_t n);

/* int16 LOGISTIC or TANH of a run of `n` elements. */
void vmcu_sigmoid_s16_block(const vmcu_sigmoid_s16_params *p, const int16_t *in, int16_t *out, int32_t n);

/* 1 when the params hold what the routines above rely on (operation, shifts, offsets, clamp, table). */
int vmcu_binary_s16_arith_ok(const vmcu_binary_s16_params *p);
int vmcu_unary_s16_params_ok(const vmcu_unary_s16_params *p);
int vmcu_sigmoid_s16_params_ok(const vmcu_sigmoid_s16_params *p);

#endif /* VMCU_ELEMENTWISE_S16_H */
