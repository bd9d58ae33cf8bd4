# CMake toolchain file: RISC-V 32-bit (RV32IMAC, ilp32) with Debian's riscv64-unknown-elf-gcc and
# picolibc (apt install gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf).
#
#   cmake -S OUT -B build -DCMAKE_TOOLCHAIN_FILE=OUT/vmcu_runtime/targets/riscv32-unknown-elf.cmake
#
# -misa-spec=2.2 keeps the CSR instructions (the minstret counter) in the base ISA, so that the
# -march string matches picolibc's rv32imac multilib. The runtime builds its portable C here.

set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv32)

set(CMAKE_C_COMPILER riscv64-unknown-elf-gcc)
set(CMAKE_CXX_COMPILER riscv64-unknown-elf-g++)
set(CMAKE_ASM_COMPILER riscv64-unknown-elf-gcc)
set(CMAKE_AR riscv64-unknown-elf-ar CACHE FILEPATH "Archiver")
set(CMAKE_RANLIB riscv64-unknown-elf-ranlib CACHE FILEPATH "Archive indexer")
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(VMCU_CPU rv32imac CACHE STRING "RISC-V core to build for")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES VMCU_CPU)
set(VMCU_CPU_FLAGS "-march=rv32imac -misa-spec=2.2 -mabi=ilp32 --specs=picolibc.specs")

set(CMAKE_C_FLAGS_INIT "${VMCU_CPU_FLAGS} -ffunction-sections -fdata-sections")
set(CMAKE_CXX_FLAGS_INIT "${VMCU_CPU_FLAGS} -ffunction-sections -fdata-sections")
set(CMAKE_ASM_FLAGS_INIT "${VMCU_CPU_FLAGS}")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
