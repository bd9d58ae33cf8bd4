/*
 * vmcu-tflite on Mbed: run a model converted by vmcu-convert in an Mbed thread, once a second,
 * and print the index of the highest output score and how long vmcu_invoke() took (Mbed's Timer).
 *
 * All the model's RAM is static: the activation pool and the runtime kernels' scratch (sized by
 * the generated header), and with the full (RTOS) profile the inference thread's stack, so the
 * linker counts every byte against the board's RAM. The bare-metal profile runs the inference
 * in main().
 *
 * CMakeLists.txt defines:
 *   VMCU_MODEL_HEADER        "<name>_model.h", the header vmcu-convert wrote
 *   VMCU_MODEL               <name>_model, the `const vmcu_model` it declares
 *   VMCU_POOL_BYTES          <NAME>_POOL_BYTES, the pool size of the plan
 *   VMCU_SCRATCH_BYTES       <NAME>_SCRATCH_BYTES, the runtime kernels' scratch
 *   VMCU_STATE_BYTES         <NAME>_STATE_BYTES, what the model keeps between frames (LSTM, SVDF)
 *   VMCU_THREAD_STACK_BYTES  the inference thread's stack
 *   VMCU_FRAMES              inferences to run (0: for ever)
 * A model converted with --stream-input takes its input rows from a simulated camera (camera_row)
 * through vmcu_invoke_streamed(), so the frame never exists whole; the other models ignore the
 * callbacks. And optionally VMCU_INPUT_HEADER (recorded inputs: vmcu_example_inputs[i] for input i, instead
 * of a made-up pattern), VMCU_PRINT_OUTPUTS (print every output byte) and VMCU_SEMIHOST_EXIT
 * (end with a semihosting exit, for QEMU). vmcu-validate --target mbed-qemu-cortex-m4 uses all
 * three and reads the lines this program prints.
 */
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "mbed.h"
#include VMCU_MODEL_HEADER
#ifdef VMCU_INPUT_HEADER
#include VMCU_INPUT_HEADER
#endif

namespace {

int8_t pool[VMCU_POOL_BYTES];
int8_t scratch[VMCU_SCRATCH_BYTES];
uint32_t state[VMCU_STATE_BYTES / 4 + 1];  // word-aligned, never empty; the runtime resets it on the first frame
const vmcu_model &model = VMCU_MODEL;

#if MBED_CONF_RTOS_PRESENT
constexpr uint32_t kStackWords = VMCU_THREAD_STACK_BYTES / 4;
MBED_ALIGN(8) uint32_t inference_stack[kStackWords];

// Bytes of the inference thread's stack ever used: from its top down to the lowest word that no
// longer holds what Mbed (osRtxStackMagicWord) or RTX (osRtxStackFillPattern) filled it with
// when the thread started; Thread::max_stack() reads the same, while the thread exists.
uint32_t stack_high_water()
{
    uint32_t word = 0;
    while (word < kStackWords && (inference_stack[word] == osRtxStackMagicWord ||
                                  inference_stack[word] == osRtxStackFillPattern)) {
        ++word;
    }
    return (kStackWords - word) * 4u;
}
#endif

// Byte `at` of input `index` in frame `frame`: the recorded one, or a pattern that stands for a sensor.
int8_t input_byte(uint32_t index, uint32_t frame, uint32_t at)
{
#ifdef VMCU_INPUT_HEADER
    // one frame's bytes after another (a sequence, for a model with state), over and over
    const uint32_t frames = vmcu_example_input_bytes[index] / model.inputs[index].bytes;
    return vmcu_example_inputs[index][(frame % frames) * model.inputs[index].bytes + at];
#else
    (void)index;
    return static_cast<int8_t>(static_cast<int32_t>((at * 31u + frame * 7u) % 256u) - 128);
#endif
}

// Inputs live in the pool (zero copy): written just before each vmcu_invoke(). A streamed input
// (vmcu-convert --stream-input) is not there: the camera hands it over row by row (camera_row).
void fill_input(uint32_t index, uint32_t frame)
{
    int8_t *input = vmcu_input(&model, pool, index);
    if (input == nullptr) {
        return;
    }
    for (uint32_t i = 0; i < model.inputs[index].bytes; ++i) {
        input[i] = input_byte(index, frame, i);
    }
}

// A simulated camera: row `row` of input `input` computed when the run asks for it, as a line
// interrupt would deliver it (rows 0, 1, ... in order, each once; a real driver may block here).
int32_t camera_row(void *context, uint32_t input, uint32_t row, int8_t *dst, uint32_t bytes)
{
    const uint32_t frame = *static_cast<const uint32_t *>(context);
    for (uint32_t i = 0; i < bytes; ++i) {
        dst[i] = input_byte(input, frame, row * bytes + i);
    }
    return 0;
}

// A streamed output's rows (vmcu-convert --stream-output), printed as they come: with
// VMCU_PRINT_OUTPUTS, the same line print_outputs() prints for a whole output (its rows come in
// order, all after the step that makes them).
int32_t output_row(void *context, uint32_t output, uint32_t row, const int8_t *src, uint32_t bytes)
{
    (void)context;
#ifdef VMCU_PRINT_OUTPUTS
    if (row == 0) {
        std::printf("output %lu:", static_cast<unsigned long>(output));
    }
    for (uint32_t i = 0; i < bytes; ++i) {
        std::printf(" %d", static_cast<int>(src[i]));
    }
    if ((row + 1) * bytes == model.outputs[output].bytes) {
        std::printf("\n");
    }
#else
    (void)output, (void)row, (void)src, (void)bytes;
#endif
    return 0;
}

// Index of the largest int8 score. The output's scale is positive, so this is also the argmax
// of the dequantized scores.
uint32_t argmax(const int8_t *scores, uint32_t count)
{
    uint32_t best = 0;
    for (uint32_t i = 1; i < count; ++i) {
        if (scores[i] > scores[best]) {
            best = i;
        }
    }
    return best;
}

void print_outputs()
{
#ifdef VMCU_PRINT_OUTPUTS
    for (uint32_t o = 0; o < model.num_outputs; ++o) {
        const int8_t *out = vmcu_output(&model, pool, o);
        if (out == nullptr) {  // streamed: printed row by row as the run handed it over
            continue;
        }
        std::printf("output %lu:", static_cast<unsigned long>(o));
        for (uint32_t i = 0; i < model.outputs[o].bytes; ++i) {
            std::printf(" %d", static_cast<int>(out[i]));
        }
        std::printf("\n");
    }
#endif
}

void run_frames()
{
    const vmcu_memory memory = {pool, static_cast<uint32_t>(sizeof pool), scratch, static_cast<uint32_t>(sizeof scratch),
                                reinterpret_cast<int8_t *>(state), VMCU_STATE_BYTES};
    mbed::Timer timer;
    uint32_t frame = 0;
    const vmcu_stream camera = {camera_row, output_row, &frame};
    for (; VMCU_FRAMES == 0 || frame < VMCU_FRAMES; ++frame) {
        for (uint32_t i = 0; i < model.num_inputs; ++i) {
            fill_input(i, frame);
        }
        timer.reset();
        timer.start();
        uint16_t failed_step = 0;
        const vmcu_status status = vmcu_invoke_streamed(&model, &memory, &camera, &failed_step);
        timer.stop();
        std::printf("status %d\n", static_cast<int>(status));
        if (status != VMCU_OK) {
            std::printf("vmcu_invoke failed at step %u\n", static_cast<unsigned>(failed_step));
            return;
        }
        const auto elapsed = std::chrono::duration_cast<std::chrono::microseconds>(timer.elapsed_time());
        const int8_t *scores = vmcu_output(&model, pool, 0);
        if (scores != nullptr) {
            const uint32_t best = argmax(scores, model.outputs[0].bytes);
            std::printf("frame %lu: argmax %lu (score %d) in %lu us\n", static_cast<unsigned long>(frame),
                        static_cast<unsigned long>(best), static_cast<int>(scores[best]),
                        static_cast<unsigned long>(elapsed.count()));
        }
        std::printf("measure invoke_us %lu\n", static_cast<unsigned long>(elapsed.count()));
        print_outputs();
        if (VMCU_FRAMES == 0) {
            rtos::ThisThread::sleep_for(std::chrono::milliseconds(1000));
        }
    }
}

#ifdef VMCU_SEMIHOST_EXIT
// Ask QEMU (started with -semihosting) to exit: SYS_EXIT with ADP_Stopped_ApplicationExit.
void semihost_exit()
{
    register uint32_t r0 __asm__("r0") = 0x18;
    register uint32_t r1 __asm__("r1") = 0x20026;
    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
}
#endif

}  // namespace

int main()
{
    std::printf("vmcu-tflite on Mbed %d.%d.%d: pool %lu bytes, scratch %lu bytes, %u input(s), %u output(s)\n",
                MBED_MAJOR_VERSION, MBED_MINOR_VERSION, MBED_PATCH_VERSION, static_cast<unsigned long>(sizeof pool),
                static_cast<unsigned long>(sizeof scratch), static_cast<unsigned>(model.num_inputs),
                static_cast<unsigned>(model.num_outputs));
#if MBED_CONF_RTOS_PRESENT
    rtos::Thread inference(osPriorityNormal, sizeof inference_stack, reinterpret_cast<unsigned char *>(inference_stack),
                           "vmcu");
    inference.start(run_frames);
    inference.join();
    std::printf("measure thread_stack_bytes %lu\n", static_cast<unsigned long>(sizeof inference_stack));
    std::printf("measure stack_bytes %lu\n", static_cast<unsigned long>(stack_high_water()));
#else
    run_frames();
#endif
#if MBED_HEAP_STATS_ENABLED
    mbed_stats_heap_t heap;
    mbed_stats_heap_get(&heap);
    std::printf("measure heap_bytes %lu\n", static_cast<unsigned long>(heap.max_size));
#endif
    std::printf("done\n");
    std::fflush(stdout);
#ifdef VMCU_SEMIHOST_EXIT
    semihost_exit();
#endif
    return 0;
}
