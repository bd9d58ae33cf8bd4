# riscv-virt: QEMU's RISC-V `virt` machine with an RV32IMAC core, run with -bios none (the
# program starts in machine mode at 0x80000000). picolibc (crt0, stdio over semihosting) brings C
# up; the first 4 MB of RAM play the part of flash, the next 4 MB are the data RAM.
set(VMCU_BOARD_CPU rv32imac)
set(VMCU_BOARD_ARCH riscv)
set(VMCU_BOARD_FLASH 0x80000000)
set(VMCU_BOARD_FLASH_BYTES 0x400000)
set(VMCU_BOARD_RAM 0x80400000)
set(VMCU_BOARD_RAM_BYTES 0x400000)
