/*
 * vmcu-tflite on Mbed OS: run a model converted by vmcu-convert once a second and print the
 * index of the highest output score and how long vmcu_invoke() took (Mbed's Timer).
 *
 * CMakeLists.txt names the model through three definitions, from VMCU_MODEL_NAME:
 *   VMCU_MODEL_HEADER  "<name>_model.h", the header vmcu-convert wrote
 *   VMCU_MODEL         <name>_model, the `const vmcu_model` it declares
 *   VMCU_POOL_BYTES    <NAME>_POOL_BYTES, the pool size of the plan
 *   VMCU_SCRATCH_BYTES <NAME>_SCRATCH_BYTES, the runtime kernels' scratch
 */
#include <chrono>
#include <cstdint>
#include <cstdio>

#include "mbed.h"
#include VMCU_MODEL_HEADER

namespace {

// All the RAM the model needs: a static array, so the linker counts it against the board's
// RAM instead of the stack having to hold it.
int8_t pool[VMCU_POOL_BYTES];
int8_t scratch[VMCU_SCRATCH_BYTES];

// Stands for a sensor: a deterministic pattern that changes from frame to frame.
void fill_input(int8_t *input, uint32_t bytes, uint32_t frame)
{
    for (uint32_t i = 0; i < bytes; ++i) {
        input[i] = static_cast<int8_t>(static_cast<int32_t>((i * 31u + frame * 7u) % 256u) - 128);
    }
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

}  // namespace

int main()
{
    const vmcu_model &model = VMCU_MODEL;
    std::printf("vmcu-tflite: pool %lu bytes, %u input(s), %u output(s)\n",
                static_cast<unsigned long>(sizeof pool), static_cast<unsigned>(model.num_inputs),
                static_cast<unsigned>(model.num_outputs));

    const vmcu_memory memory = {pool, static_cast<uint32_t>(sizeof pool), scratch, static_cast<uint32_t>(sizeof scratch)};
    mbed::Timer timer;
    for (uint32_t frame = 0;; ++frame) {
        // Inputs live in the pool (zero copy): write them just before each vmcu_invoke().
        for (uint32_t i = 0; i < model.num_inputs; ++i) {
            fill_input(vmcu_input(&model, pool, i), model.inputs[i].bytes, frame);
        }
        timer.reset();
        timer.start();
        uint16_t failed_step = 0;
        const vmcu_status status = vmcu_invoke(&model, &memory, &failed_step);
        timer.stop();
        if (status != VMCU_OK) {
            std::printf("vmcu_invoke failed: status %d at step %u\n", static_cast<int>(status),
                        static_cast<unsigned>(failed_step));
            return 1;
        }
        const int8_t *scores = vmcu_output(&model, pool, 0);
        const uint32_t best = argmax(scores, model.outputs[0].bytes);
        const auto elapsed = std::chrono::duration_cast<std::chrono::microseconds>(timer.elapsed_time());
        std::printf("frame %lu: argmax %lu (score %d) in %lu us\n", static_cast<unsigned long>(frame),
                    static_cast<unsigned long>(best), static_cast<int>(scores[best]),
                    static_cast<unsigned long>(elapsed.count()));
        rtos::ThisThread::sleep_for(std::chrono::milliseconds(1000));
    }
}
