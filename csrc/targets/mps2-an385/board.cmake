# mps2-an385: core and SysTick calibration (instructions per tick under QEMU -icount shift=0).
set(VMCU_BOARD_CPU cortex-m3)
set(VMCU_BOARD_INSNS_PER_TICK_NUM 40)
set(VMCU_BOARD_INSNS_PER_TICK_DEN 1)
