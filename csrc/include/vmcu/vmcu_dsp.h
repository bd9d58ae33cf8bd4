/*
 * vmcu-tflite runtime: the multiply-accumulate inner loops of CONV_2D, DEPTHWISE_CONV_2D
 * and FULLY_CONNECTED, with a Cortex-M DSP-extension path. Shared by the hand-written kernels
 * and by the kernels vmcu_tflite/kernels/lower/ generates into a model's .c file.
 *
 * On a core with the DSP extension (__ARM_FEATURE_DSP, e.g. Cortex-M4/M7/M33) four int8 values
 * are loaded as one word and widened pairwise to 16 bits with SXTB16 (bytes 0 and 2) and SXTB16
 * of the word rotated by 8 (bytes 1 and 3); SXTAB16 adds the input offset to both halves on the
 * way. SMLAD then multiplies both halves and adds both products to an accumulator (dot
 * products: conv and fully connected); SMLABB / SMLATT multiply one half each (depthwise, where
 * every channel has its own accumulator). Every sum is an int32 sum of the same products as the
 * portable loop, added in another order: two's complement addition wraps the same way in any
 * order, so both paths give the same bits.
 *
 * On a core with Helium (__ARM_FEATURE_MVE, Cortex-M55/M85) the dot products over int8 rows take
 * the MVE path instead: 16 lanes per VLDRB.S8, VMLADAVA.S8 adding the 16 products to a scalar
 * accumulator, the last vector predicated by VCTP.8 (its inactive lanes load as 0 and read no
 * memory). The input offset is added once per row as x_offset times the sum of the weights
 * (VADDVA.S8): sum (x + o) w = sum x w + o sum w, exactly, in wrapping int32 arithmetic.
 *
 * Defining VMCU_EMULATE_DSP compiles the DSP path with C emulations of the instructions (to run
 * it on the host); VMCU_NO_DSP forces the portable path on a DSP core, VMCU_NO_MVE the DSP path on
 * a Helium core.
 *
 * This header configures the paths (VMCU_DSP, VMCU_MVE and the macros below) and includes the
 * helpers from its parts, split by instruction set and by family as the C generator is
 * (vmcu_tflite/kernels/lower/: core, dsp, helium): vmcu_dsp_arm*.h hold what only the DSP path
 * compiles, vmcu_dsp_mve*.h what only the Helium path compiles, and the others the helpers whose
 * one body holds every path under #if (Helium, DSP, then the portable fallback). Everything
 * includes this header, never a part.
 */
#ifndef VMCU_DSP_H
#define VMCU_DSP_H

#include <stdint.h>
#include <string.h>

#include "vmcu_support.h"

#if defined(VMCU_EMULATE_DSP)
#define VMCU_DSP 1
#define VMCU_DSP_EMULATED 1
#elif defined(__ARM_FEATURE_DSP) && defined(__ARM_FEATURE_SIMD32) && !defined(__ARM_BIG_ENDIAN) && \
    !defined(VMCU_NO_DSP)
#define VMCU_DSP 1
#define VMCU_DSP_EMULATED 0
#include <arm_acle.h>
#else
#define VMCU_DSP 0
#define VMCU_DSP_EMULATED 0
#endif

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1) && !defined(__ARM_BIG_ENDIAN) && !defined(VMCU_NO_MVE) && \
    !defined(VMCU_EMULATE_DSP)
#define VMCU_MVE 1
#include <arm_mve.h>
#else
#define VMCU_MVE 0
#endif

/* The declared size of a generated kernel's small int8 buffer. Helium stores vectors into them, and
 * GCC 12 keeps an int8 array of at most 8 bytes in a core register, where a vector store into it is an
 * internal compiler error: on Helium such buffers are declared 16 bytes (the kernel uses the first n). */
#if VMCU_MVE
#define VMCU_BUFFER_BYTES(n) ((n) < 16 ? 16 : (n))
#else
#define VMCU_BUFFER_BYTES(n) (n)
#endif

/* A generated kernel's buffer of widened (int16) inputs starts on a word: the DSP dot products read it
 * two words at a time (LDRD, which faults on a halfword boundary). */
#if defined(__GNUC__)
#define VMCU_WORD_ALIGNED __attribute__((aligned(4)))
#else
#define VMCU_WORD_ALIGNED
#endif

/* Helpers the generated kernels call in their inner loops, inlined whatever GCC's size estimate: a
 * copy out of line (GCC made some once the DSP dot product grew its call to the runtime's loop) takes
 * its pointers and lengths as variables and its accumulators through memory. */
#if defined(__GNUC__)
#define VMCU_INLINE static inline __attribute__((always_inline))
#else
#define VMCU_INLINE static inline
#endif

/* The helpers, by instruction set and family, in this order (each part uses those before it). */
#include "vmcu_dsp_arm.h"
#include "vmcu_dsp_mve_dot.h"
#include "vmcu_dsp_dot.h"
#include "vmcu_dsp_gemm.h"
#include "vmcu_dsp_dot16.h"
#include "vmcu_dsp_mve_lanes.h"
#include "vmcu_dsp_arm_lanes.h"
#include "vmcu_dsp_requant.h"
#include "vmcu_dsp_mve_s16.h"

#endif /* VMCU_DSP_H */
