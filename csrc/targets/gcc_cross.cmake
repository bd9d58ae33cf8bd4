# What the toolchain files share (arm-none-eabi.cmake, riscv32-unknown-elf.cmake): a bare-metal GCC
# cross toolchain named by its tool prefix, compiling with VMCU_CPU_FLAGS (the core's flags, set by
# the including file) and every function and object in its own section, so that an executable
# linked with -Wl,--gc-sections keeps only the kernels a model uses.
macro(vmcu_gcc_cross_toolchain prefix processor)
  set(CMAKE_SYSTEM_NAME Generic)
  set(CMAKE_SYSTEM_PROCESSOR ${processor})

  set(CMAKE_C_COMPILER ${prefix}gcc)
  set(CMAKE_CXX_COMPILER ${prefix}g++)
  set(CMAKE_ASM_COMPILER ${prefix}gcc)
  set(CMAKE_AR ${prefix}ar CACHE FILEPATH "Archiver")
  set(CMAKE_RANLIB ${prefix}ranlib CACHE FILEPATH "Archive indexer")

  # There is no operating system to link a test executable against: check the compiler by
  # building a static library instead.
  set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
  # try_compile() projects read the toolchain file again; hand them the same core.
  list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES VMCU_CPU)

  set(CMAKE_C_FLAGS_INIT "${VMCU_CPU_FLAGS} -ffunction-sections -fdata-sections")
  set(CMAKE_CXX_FLAGS_INIT "${VMCU_CPU_FLAGS} -ffunction-sections -fdata-sections")
  set(CMAKE_ASM_FLAGS_INIT "${VMCU_CPU_FLAGS}")

  # Programs come from the host; headers and libraries only from the cross toolchain.
  set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
  set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
  set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
  set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
endmacro()
