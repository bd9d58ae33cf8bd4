# microbit (BBC micro:bit, nRF51822: Cortex-M0, 256 KB flash, 16 KB RAM). SysTick runs on the
# 16 MHz processor clock: one tick = 62.5 ns = 62.5 instructions under -icount shift=0.
set(VMCU_BOARD_CPU cortex-m0)
set(VMCU_BOARD_INSNS_PER_TICK_NUM 125)
set(VMCU_BOARD_INSNS_PER_TICK_DEN 2)
