/*
 * vmcu-tflite runtime, private: what vmcu_invoke_streamed() does for streamed inputs and outputs
 * (vmcu_stream.c), called only after vmcu_check_tables() accepted the model.
 */
#ifndef VMCU_STREAM_H
#define VMCU_STREAM_H

#include "vmcu/vmcu_types.h"

/** -1 when a streamed port lacks its callback in `stream`; else the number of streamed ports (0: the
 *  run never looks at `stream`). */
int32_t vmcu_stream_ready(const vmcu_model *model, const vmcu_stream *stream);

/** Every row of the streamed inputs step `s` reads whole from the pool, pulled into their tensors in order. */
vmcu_status vmcu_pull_inputs(const vmcu_model *model, const vmcu_context *ctx, uint16_t s);

/** Every row of the streamed outputs step `s` made, handed to stream->write_row in order. */
vmcu_status vmcu_push_outputs(const vmcu_model *model, const int8_t *pool, const vmcu_stream *stream, uint16_t s);

#endif /* VMCU_STREAM_H */
