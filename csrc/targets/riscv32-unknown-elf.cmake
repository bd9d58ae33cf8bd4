# CMake toolchain file: RISC-V 32-bit (RV32IMAC, ilp32) with Debian's riscv64-unknown-elf-gcc and
# picolibc (apt install gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf).
#
#   cmake -S OUT -B build -DCMAKE_TOOLCHAIN_FILE=OUT/vmcu_runtime/targets/riscv32-unknown-elf.cmake
#
# -misa-spec=2.2 keeps the CSR instructions (the minstret counter) in the base ISA, so that the
# -march string matches picolibc's rv32imac multilib. The runtime builds its portable C here.

set(VMCU_CPU rv32imac CACHE STRING "RISC-V core to build for")
set(VMCU_CPU_FLAGS "-march=rv32imac -misa-spec=2.2 -mabi=ilp32 --specs=picolibc.specs")

include(${CMAKE_CURRENT_LIST_DIR}/gcc_cross.cmake)
vmcu_gcc_cross_toolchain(riscv64-unknown-elf- riscv32)
