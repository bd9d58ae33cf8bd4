# mps2-an500: core and SysTick calibration (instructions per tick under QEMU -icount shift=0).
set(VMCU_BOARD_CPU cortex-m7)
set(VMCU_BOARD_INSNS_PER_TICK_NUM 40)
set(VMCU_BOARD_INSNS_PER_TICK_DEN 1)
