/*
 * vmcu-tflite runtime: the public API.
 *
 *     static int8_t pool[MYMODEL_POOL_BYTES], scratch[MYMODEL_SCRATCH_BYTES];
 *     const vmcu_memory memory = {pool, sizeof pool, scratch, sizeof scratch};
 *     int8_t *in = vmcu_input(&mymodel, pool, 0);    // write the input here (zero copy)
 *     if (vmcu_invoke(&mymodel, &memory, NULL) != VMCU_OK) { ... }
 *     const int8_t *out = vmcu_output(&mymodel, pool, 0);
 *
 * The application owns all the RAM: the pool, a small scratch and, for a model with variable
 * tensors (LSTM, SVDF), a state region kept between calls (`{pool, .., scratch, .., state,
 * sizeof state}`, 4-byte aligned). The runtime never allocates and keeps nothing of its own between
 * calls. Inputs and outputs are pointers into the pool: write the input just before vmcu_invoke()
 * and read the output right after it, since the pool is reused for everything.
 *
 * Streamed inputs and outputs (a model converted with streamed ports: vmcu_io.rows > 0, and
 * <PREFIX>_INPUT<i>_ROWS / _ROW_BYTES in its header): such an input never exists whole in the
 * application's hands, it is pulled row by row through a callback; such an output is pushed row by
 * row. Run the model with vmcu_invoke_streamed() and a vmcu_stream:
 *
 *     static int32_t read_row(void *context, uint32_t input, uint32_t row, int8_t *dst, uint32_t bytes)
 *     { return camera_line(context, row, dst, bytes); }   // 0: the row is there
 *     static int32_t write_row(void *context, uint32_t output, uint32_t row, const int8_t *src, uint32_t bytes)
 *     { return send_line(context, row, src, bytes); }    // copy it now: src is reused after the call
 *     const vmcu_stream stream = {read_row, write_row, &my_device};
 *     if (vmcu_invoke_streamed(&mymodel, &memory, &stream, NULL) != VMCU_OK) { ... }
 *
 * The protocol: read_row is asked for rows 0, 1, 2, ... of each streamed input, each once and in
 * increasing order, `bytes` = the input's bytes / rows; it may block until the row exists (a
 * camera's line, a DMA half-buffer), and writes it straight into the pool. write_row gets the rows
 * of each streamed output in the same order: as soon as each is made where the step that makes
 * the output pushes it from its ring (vmcu_push_row()), else as soon as that step has returned. A
 * callback returning non-zero stops the run with VMCU_ERROR_STREAM. vmcu_input() and vmcu_output()
 * return NULL for a streamed port.
 *
 * What is checked, and when:
 * - Every call of vmcu_invoke(), vmcu_reset_state(), vmcu_input() and vmcu_output() first checks
 *   the model struct's own integers (its sizes and the counts of its arrays) against their CRC,
 *   `header_crc`: a count that lies about its array is refused before the array is read.
 * - Before a run, vmcu_invoke() also checks every table against the buffers: each tensor, input
 *   and output inside the pool (a streamed one: whole rows, a step that exists, and a tensor that
 *   holds all of it or, for an input its step's kernel pulls, none), each step's tensors, scratch and workspace inside theirs, and each
 *   step's params against everything its kernel will touch (element counts and shapes against the
 *   tensors' bytes, the scratch, the workspace rings, the state; zero points, shifts and clamps
 *   within what the kernel's arithmetic takes without overflow). Whatever any one integer of the
 *   tables says, a run either returns a status or stays inside the application's buffers and the
 *   model's constants (tests/c/test_table_fuzz.py changes each in turn). Several integers changed
 *   so that they still agree with each other (a resize's output height doubled and its width
 *   halved) could still send a kernel past the end of a constant array whose length they imply:
 *   vmcu_verify_model() catches those. What these checks cost per run is in BENCHMARKS.md
 *   (Integrity).
 * - vmcu_verify_model(), on demand (at boot, or periodically as a class B flash self-test), adds
 *   a CRC-32 over every integer of the tables and every weight and constant, in the order the
 *   converter computed it: it catches values that are wrong but plausible (a multiplier, a
 *   weight, a zero point), which no range check can.
 */
#ifndef VMCU_H
#define VMCU_H

#include <stdint.h>

#include "vmcu_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Run the model once in `memory`, after checking every table against it.
 * @param[in]     model       generated tables (const, in flash)
 * @param[in,out] memory      the pool (input on entry, output on return) and the scratch
 * @param[out]    failed_step when the result is not VMCU_OK: the step whose tables or kernel
 *                            failed, or model->num_steps when the model's own sizes or I/O tables
 *                            do; may be NULL
 * @return VMCU_OK, VMCU_ERROR_POOL_TOO_SMALL, VMCU_ERROR_SCRATCH_TOO_SMALL, VMCU_ERROR_STATE_TOO_SMALL,
 *         VMCU_ERROR_BAD_MODEL, VMCU_ERROR_BAD_ARGUMENT (also: the model streams a port, which
 *         needs vmcu_invoke_streamed()), VMCU_ERROR_UNSUPPORTED or VMCU_ERROR_ARITHMETIC (a step met
 *         data its arithmetic is undefined on: an int32 DIV by zero, a detector's empty box)
 *
 * A state region that does not hold this model's state yet (first run: a zeroed buffer, or one
 * another model used) is reset first, as vmcu_reset_state() does; after that each run continues
 * from the state the previous one left, as TFLite does between invocations.
 */
vmcu_status vmcu_invoke(const vmcu_model *model, const vmcu_memory *memory, uint16_t *failed_step);

/**
 * @brief vmcu_invoke() for a model with streamed inputs or outputs: their rows come from
 *        stream->read_row and go to stream->write_row (the protocol is above). vmcu_invoke(m, mem,
 *        fs) is vmcu_invoke_streamed(m, mem, NULL, fs).
 * @param[in] stream the application's callbacks and their context; may be NULL for a model that
 *                   streams nothing
 * @return as vmcu_invoke(), and VMCU_ERROR_BAD_ARGUMENT before anything runs when the model streams
 *         an input and `stream` or its read_row is NULL, or an output and `stream` or its write_row
 *         is NULL; VMCU_ERROR_STREAM when a callback returned non-zero, with *failed_step the step
 *         that was waiting for it: the step about to run for an input pulled before it, the step
 *         just run for an output pushed after it, the running step for a row its kernel pulls
 *         or pushes
 */
vmcu_status vmcu_invoke_streamed(const vmcu_model *model, const vmcu_memory *memory, const vmcu_stream *stream,
                                 uint16_t *failed_step);

/**
 * @brief Check the model's tables and constants against the CRC-32 the converter computed
 *        (`model->crc`): every integer of the tables, every weight, bias, multiplier and table of
 *        constants. Runs the checks vmcu_invoke() runs first, so it reads nothing a corrupt table
 *        points past; touches no RAM but its stack. It reads every constant byte of the model:
 *        its cost per model is in BENCHMARKS.md (Integrity).
 * @return VMCU_OK, VMCU_ERROR_BAD_MODEL (a table or a constant is not what the converter wrote)
 *         or VMCU_ERROR_BAD_ARGUMENT (NULL)
 */
vmcu_status vmcu_verify_model(const vmcu_model *model);

/**
 * @brief Set every variable tensor of `model` to TFLite's initial value (a new sequence: an int8
 *        variable holds its zero point, an int16 one 0). Does nothing for a model without state.
 * @return VMCU_OK, VMCU_ERROR_STATE_TOO_SMALL, VMCU_ERROR_BAD_MODEL or VMCU_ERROR_BAD_ARGUMENT
 */
vmcu_status vmcu_reset_state(const vmcu_model *model, const vmcu_memory *memory);

#ifdef VMCU_PROFILE
/**
 * Profiling builds (CMake -DVMCU_PROFILE=ON): vmcu_invoke() calls this, defined by the
 * application, before step `step` runs and once more with `step` = the step count after the
 * last one, so that the time between two calls is one kernel call.
 */
void vmcu_profile_step(uint16_t step);
#endif

/** @brief Where input `index` lives in `pool` (its bytes are contiguous: model->inputs[index].bytes of
 *         elements of type model->inputs[index].type, little-endian, int8 for a quantized model; a wider
 *         type starts at an offset aligned to its size, so with a pool aligned to 8 the pointer may be
 *         cast to its type); NULL if the model's
 *         own integers do not match `header_crc`, there is no such input, it is streamed (its
 *         rows come through vmcu_stream) or its table entry leaves the pool. */
int8_t *vmcu_input(const vmcu_model *model, int8_t *pool, uint32_t index);

/** @brief Where output `index` lives in `pool` (contiguous); NULL as for vmcu_input(). An output of
 *         another type than int8 (model->outputs[index].type: a detector's float32 boxes, classes,
 *         scores and count, an audio front end's int16 features; vmcu_io scale 0) holds its values'
 *         own little-endian bytes, aligned as vmcu_input() says. */
const int8_t *vmcu_output(const vmcu_model *model, const int8_t *pool, uint32_t index);

#ifdef __cplusplus
}
#endif

#endif /* VMCU_H */
