# mps2-an505 (Arm MPS2 with the AN505 image: IoT Kit with a Cortex-M33, DSP and FPv5-SP). SysTick
# runs on the 20 MHz system clock: one tick = 50 ns = 50 instructions under -icount shift=0.
set(VMCU_BOARD_CPU cortex-m33)
set(VMCU_BOARD_INSNS_PER_TICK_NUM 50)
set(VMCU_BOARD_INSNS_PER_TICK_DEN 1)
