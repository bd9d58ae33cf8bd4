/*
 * vmcu-tflite on Zephyr: run a model converted by vmcu-convert in its own thread and print the
 * index of the highest output score and how long vmcu_invoke() took (Zephyr's cycle counter).
 *
 * All the model's RAM is static: the activation pool and the runtime kernels' scratch (sized by
 * the generated header), the state a model with LSTM or SVDF layers keeps between frames, and the
 * inference thread's stack (K_THREAD_STACK_DEFINE), so the linker counts every byte against the
 * board's RAM. Nothing is allocated at run time.
 *
 * CMakeLists.txt defines:
 *   VMCU_MODEL_HEADER   "<name>_model.h", the header vmcu-convert wrote
 *   VMCU_MODEL          <name>_model, the `const vmcu_model` it declares
 *   VMCU_POOL_BYTES     <NAME>_POOL_BYTES, the pool size of the plan
 *   VMCU_SCRATCH_BYTES  <NAME>_SCRATCH_BYTES, the runtime kernels' scratch
 *   VMCU_STATE_BYTES    <NAME>_STATE_BYTES, what the model keeps between frames
 * and optionally VMCU_INPUT_HEADER (recorded inputs: vmcu_example_inputs[i] for input i, instead
 * of a made-up pattern). Kconfig (prj.conf) sets the thread's stack and priority, how many frames
 * to run, whether to print every output byte and whether to end with a semihosting exit (QEMU).
 * vmcu-validate --target zephyr-qemu-cortex-m4 uses all of them and reads the lines this program
 * prints. A model converted with --stream-input takes its input rows from a simulated camera
 * (camera_row) through vmcu_invoke_streamed(), so the frame never exists whole.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdint.h>

#include <zephyr/kernel.h>
#include <zephyr/sys/printk.h>
#include <zephyr/version.h>
#if defined(CONFIG_VMCU_EXAMPLE_SEMIHOST_EXIT)
#include <zephyr/arch/common/semihost.h>
#endif

#include VMCU_MODEL_HEADER
#ifdef VMCU_INPUT_HEADER
#include VMCU_INPUT_HEADER
#endif

#define MODEL VMCU_MODEL

static int8_t pool[VMCU_POOL_BYTES];
static int8_t scratch[VMCU_SCRATCH_BYTES];
/* word-aligned, never empty; the runtime resets it on the first frame */
static uint32_t state[VMCU_STATE_BYTES / 4u + 1u];

K_THREAD_STACK_DEFINE(inference_stack, CONFIG_VMCU_EXAMPLE_STACK_SIZE);
static struct k_thread inference_thread;

/* Byte `at` of input `index` in frame `frame`: the recorded one, or a pattern that stands for a sensor. */
static int8_t input_byte(uint32_t index, uint32_t frame, uint32_t at)
{
#ifdef VMCU_INPUT_HEADER
	/* one frame's bytes after another (a sequence, for a model with state), over and over */
	const uint32_t frames = vmcu_example_input_bytes[index] / MODEL.inputs[index].bytes;

	return vmcu_example_inputs[index][(frame % frames) * MODEL.inputs[index].bytes + at];
#else
	ARG_UNUSED(index);
	return (int8_t)((int32_t)((at * 31u + frame * 7u) % 256u) - 128);
#endif
}

/* Inputs live in the pool (zero copy): written just before each vmcu_invoke(). A streamed input
 * (vmcu-convert --stream-input) is not there: the camera hands it over row by row (camera_row).
 */
static void fill_input(uint32_t index, uint32_t frame)
{
	int8_t *input = vmcu_input(&MODEL, pool, index);

	if (input == NULL) {
		return;
	}
	for (uint32_t i = 0; i < MODEL.inputs[index].bytes; ++i) {
		input[i] = input_byte(index, frame, i);
	}
}

/* A simulated camera: row `row` of input `input` computed when the run asks for it, as a line
 * interrupt would deliver it (rows 0, 1, ... in order, each once; a real driver may block here).
 */
static int32_t camera_row(void *context, uint32_t input, uint32_t row, int8_t *dst, uint32_t bytes)
{
	const uint32_t frame = *(const uint32_t *)context;

	for (uint32_t i = 0; i < bytes; ++i) {
		dst[i] = input_byte(input, frame, row * bytes + i);
	}
	return 0;
}

/* A streamed output's rows (vmcu-convert --stream-output), printed as they come: with
 * CONFIG_VMCU_EXAMPLE_PRINT_OUTPUTS, the line print_outputs() prints for a whole output.
 */
static int32_t output_row(void *context, uint32_t output, uint32_t row, const int8_t *src, uint32_t bytes)
{
	ARG_UNUSED(context);
	if (!IS_ENABLED(CONFIG_VMCU_EXAMPLE_PRINT_OUTPUTS)) {
		return 0;
	}
	if (row == 0u) {
		printk("output %u:", (unsigned int)output);
	}
	for (uint32_t i = 0; i < bytes; ++i) {
		printk(" %d", (int)src[i]);
	}
	if ((row + 1u) * bytes == MODEL.outputs[output].bytes) {
		printk("\n");
	}
	return 0;
}

/* Index of the largest int8 score. The output's scale is positive, so this is also the argmax of
 * the dequantized scores.
 */
static uint32_t argmax(const int8_t *scores, uint32_t count)
{
	uint32_t best = 0;

	for (uint32_t i = 1; i < count; ++i) {
		if (scores[i] > scores[best]) {
			best = i;
		}
	}
	return best;
}

static void print_outputs(void)
{
	if (!IS_ENABLED(CONFIG_VMCU_EXAMPLE_PRINT_OUTPUTS)) {
		return;
	}
	for (uint32_t o = 0; o < MODEL.num_outputs; ++o) {
		const int8_t *out = vmcu_output(&MODEL, pool, o);

		if (out == NULL) { /* streamed: printed row by row as the run handed it over */
			continue;
		}
		printk("output %u:", (unsigned int)o);
		for (uint32_t i = 0; i < MODEL.outputs[o].bytes; ++i) {
			printk(" %d", (int)out[i]);
		}
		printk("\n");
	}
}

/* The inference thread: CONFIG_VMCU_EXAMPLE_FRAMES runs (0: one a second, for ever). */
static void run_frames(void *p1, void *p2, void *p3)
{
	ARG_UNUSED(p1);
	ARG_UNUSED(p2);
	ARG_UNUSED(p3);
	const vmcu_memory memory = {pool, (uint32_t)sizeof pool, scratch, (uint32_t)sizeof scratch,
				    (int8_t *)state, VMCU_STATE_BYTES};
	uint32_t frame = 0;
	const vmcu_stream camera = {camera_row, output_row, &frame};

	for (; CONFIG_VMCU_EXAMPLE_FRAMES == 0 || frame < CONFIG_VMCU_EXAMPLE_FRAMES; ++frame) {
		for (uint32_t i = 0; i < MODEL.num_inputs; ++i) {
			fill_input(i, frame);
		}
		uint16_t failed_step = 0;
		const uint32_t start = k_cycle_get_32();
		const vmcu_status status = vmcu_invoke_streamed(&MODEL, &memory, &camera, &failed_step);
		const uint32_t cycles = k_cycle_get_32() - start;

		printk("status %d\n", (int)status);
		if (status != VMCU_OK) {
			printk("vmcu_invoke failed at step %u\n", (unsigned int)failed_step);
			return;
		}
		const int8_t *scores = vmcu_output(&MODEL, pool, 0);

		if (scores != NULL) {
			const uint32_t best = argmax(scores, MODEL.outputs[0].bytes);

			printk("frame %u: argmax %u (score %d) in %u us\n", frame, best, (int)scores[best],
			       (uint32_t)k_cyc_to_us_floor64(cycles));
		}
		printk("measure invoke_cycles %u\n", cycles);
		print_outputs();
		if (CONFIG_VMCU_EXAMPLE_FRAMES == 0) {
			k_msleep(1000);
		}
	}
}

int main(void)
{
	printk("vmcu-tflite on Zephyr %s (%s): pool %u bytes, scratch %u bytes, %u input(s), %u output(s)\n",
	       KERNEL_VERSION_STRING, CONFIG_BOARD_TARGET, (unsigned int)sizeof pool,
	       (unsigned int)sizeof scratch, (unsigned int)MODEL.num_inputs, (unsigned int)MODEL.num_outputs);
	printk("measure cycles_per_sec %u\n", (uint32_t)sys_clock_hw_cycles_per_sec());

	k_tid_t tid = k_thread_create(&inference_thread, inference_stack, K_THREAD_STACK_SIZEOF(inference_stack),
				      run_frames, NULL, NULL, NULL, CONFIG_VMCU_EXAMPLE_PRIORITY, 0, K_NO_WAIT);
	k_thread_name_set(tid, "vmcu");
	k_thread_join(&inference_thread, K_FOREVER);

	printk("measure thread_stack_bytes %u\n", (unsigned int)K_THREAD_STACK_SIZEOF(inference_stack));
#if defined(CONFIG_INIT_STACKS) && defined(CONFIG_THREAD_STACK_INFO)
	size_t unused = 0;

	if (k_thread_stack_space_get(&inference_thread, &unused) == 0) {
		printk("measure stack_bytes %u\n",
		       (unsigned int)(K_THREAD_STACK_SIZEOF(inference_stack) - unused));
	}
#endif
	printk("done\n");
#if defined(CONFIG_VMCU_EXAMPLE_SEMIHOST_EXIT)
	/* SYS_EXIT (0x18) with ADP_Stopped_ApplicationExit (0x20026): QEMU exits with status 0. */
	(void)semihost_exec((enum semihost_instr)0x18, (void *)(uintptr_t)0x20026);
#endif
	return 0;
}
