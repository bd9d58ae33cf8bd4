/*
 * The 2x2 GEMM tile over widened inputs, out of line (Cortex-M with the DSP extension, GCC-compatible
 * compilers): see vmcu_dot2x2_s16_s8_run in vmcu_dsp.h.
 */
#include "vmcu/vmcu_dsp.h"

#if VMCU_DOT_RUN

/*
 * One group of four inputs of two pixels x0, x1 by two weight rows w0, w1, every pointer advanced past
 * it: 17 instructions, 13 registers (x0's pair is read twice rather than held).
 */
#define VMCU_GROUP(X0, X1, W0, W1, A00, A01, A10, A11)                                                     \
    do {                                                                                                   \
        uint32_t t_, v_, p_, q_;                                                                           \
        __asm__("ldr %[v], [%[w0]], #4\n\t"                                                                \
                "ldrd %[p], %[q], [%[x0]]\n\t"                                                             \
                "sxtb16 %[t], %[v]\n\t"                                                                    \
                "sxtb16 %[v], %[v], ror #8\n\t"                                                            \
                "smlad %[a00], %[p], %[t], %[a00]\n\t"                                                     \
                "smlad %[a00], %[q], %[v], %[a00]\n\t"                                                     \
                "ldrd %[p], %[q], [%[x1]], #8\n\t"                                                         \
                "smlad %[a10], %[p], %[t], %[a10]\n\t"                                                     \
                "smlad %[a10], %[q], %[v], %[a10]\n\t"                                                     \
                "ldr %[v], [%[w1]], #4\n\t"                                                                \
                "sxtb16 %[t], %[v]\n\t"                                                                    \
                "sxtb16 %[v], %[v], ror #8\n\t"                                                            \
                "smlad %[a11], %[p], %[t], %[a11]\n\t"                                                     \
                "smlad %[a11], %[q], %[v], %[a11]\n\t"                                                     \
                "ldrd %[p], %[q], [%[x0]], #8\n\t"                                                         \
                "smlad %[a01], %[p], %[t], %[a01]\n\t"                                                     \
                "smlad %[a01], %[q], %[v], %[a01]"                                                         \
                : [a00] "+r"(A00), [a01] "+r"(A01), [a10] "+r"(A10), [a11] "+r"(A11), [x0] "+r"(X0),     \
                  [x1] "+r"(X1), [w0] "+r"(W0), [w1] "+r"(W1), [t] "=&r"(t_), [v] "=&r"(v_),             \
                  [p] "=&r"(p_), [q] "=&r"(q_)                                                             \
                :                                                                                          \
                : "memory");                                                                               \
    } while (0)

void vmcu_dot2x2_s16_s8_run(const int16_t *x0, const int16_t *x1, const int8_t *w0, const int8_t *w1, int32_t len,
                            int32_t acc[4])
{
    int32_t a00 = acc[0], a01 = acc[1], a10 = acc[2], a11 = acc[3];
    const int16_t *const end = x0 + len;
    while (x0 != end) {
        VMCU_GROUP(x0, x1, w0, w1, a00, a01, a10, a11);
        VMCU_GROUP(x0, x1, w0, w1, a00, a01, a10, a11);
    }
    acc[0] = a00;
    acc[1] = a01;
    acc[2] = a10;
    acc[3] = a11;
}

#else
typedef int vmcu_dot_dsp_unused; /* ISO C: a translation unit declares something */
#endif
