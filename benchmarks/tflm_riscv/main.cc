// One Invoke() of TensorFlow Lite Micro (reference kernels) on the riscv-virt board, counted by
// the board's vmcu_board_measure_begin/end exactly as vmcu-validate counts vmcu_invoke(): the
// instructions of the inference alone, not of parsing the model or planning the arena.
//
// Output read by run_tflm.py, one item a line:
//   measure instructions|stack_bytes|heap_bytes N
//   status 0|1, arena_used N
//   output I int8|float: values (float32 as hex words, to compare bit for bit)
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tensorflow/lite/micro/micro_interpreter.h"
#include "tensorflow/lite/micro/micro_mutable_op_resolver.h"
#include "tensorflow/lite/micro/micro_time.h"
#include "vmcu_board.h"

extern const unsigned char g_model[];
extern const unsigned char *const g_inputs[];
extern const unsigned int g_input_bytes[];
extern const unsigned int g_num_inputs;

namespace tflite {
// TFLM's clock, for its own profiling hooks: the board's instruction counter.
uint32_t ticks_per_second() { return 0; }
uint32_t GetCurrentTimeTicks() { return static_cast<uint32_t>(vmcu_board_instructions()); }
}  // namespace tflite

namespace {

alignas(16) uint8_t arena[ARENA_BYTES];

void print_tensor(uint32_t index, const TfLiteTensor *t) {
  if (t->type == kTfLiteFloat32) {
    printf("output %u float:", (unsigned)index);
    const uint8_t *p = reinterpret_cast<const uint8_t *>(t->data.raw);
    for (size_t i = 0; i + 4 <= t->bytes; i += 4) {
      uint32_t word;
      memcpy(&word, p + i, 4);
      printf(" %08lx", (unsigned long)word);
    }
  } else {
    printf("output %u int8:", (unsigned)index);
    for (size_t i = 0; i < t->bytes; ++i) printf(" %d", (int)t->data.int8[i]);
  }
  printf("\n");
}

int fail(const char *what) {
  printf("status 1\n%s\n", what);
  return 1;
}

}  // namespace

int main(void) {
  // Function-local statics: constructed on first use, which needs no .init_array support.
  static tflite::MicroMutableOpResolver<16> resolver;  // every operator of the shared models, and a few more
  resolver.AddAdd();
  resolver.AddAveragePool2D();
  resolver.AddConcatenation();
  resolver.AddConv2D();
  resolver.AddDepthwiseConv2D();
  resolver.AddDequantize();
  resolver.AddFullyConnected();
  resolver.AddLogistic();
  resolver.AddMaxPool2D();
  resolver.AddMean();
  resolver.AddMul();
  resolver.AddPad();
  resolver.AddQuantize();
  resolver.AddReshape();
  resolver.AddSoftmax();
  resolver.AddTranspose();

  static tflite::MicroInterpreter interpreter(tflite::GetModel(g_model), resolver, arena, sizeof arena);
  if (interpreter.AllocateTensors() != kTfLiteOk) return fail("AllocateTensors failed");
  if (interpreter.inputs_size() != g_num_inputs) return fail("wrong number of inputs");
  for (uint32_t i = 0; i < g_num_inputs; ++i) {
    TfLiteTensor *in = interpreter.input(i);
    if (in->bytes != g_input_bytes[i]) return fail("input size differs from the harness's");
    memcpy(in->data.raw, g_inputs[i], in->bytes);
  }

  vmcu_board_measure_begin();
  const TfLiteStatus status = interpreter.Invoke();
  vmcu_board_measure_end();

  printf("status %d\n", status == kTfLiteOk ? 0 : 1);
  printf("arena_used %u\n", (unsigned)interpreter.arena_used_bytes());
  for (uint32_t o = 0; o < interpreter.outputs_size(); ++o) print_tensor(o, interpreter.output(o));
  vmcu_board_exit(status == kTfLiteOk ? 0 : 1);
  return 0;
}
