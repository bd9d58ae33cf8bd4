# mps3-an547 (Arm MPS3 with the AN547 image: SSE-300 with a Cortex-M55, Helium/MVE and FPU).
# SysTick runs on the 32 MHz system clock: one tick = 31.25 ns = 31.25 instructions under
# -icount shift=0.
set(VMCU_BOARD_CPU cortex-m55)
set(VMCU_BOARD_INSNS_PER_TICK_NUM 125)
set(VMCU_BOARD_INSNS_PER_TICK_DEN 4)
