# CMake toolchain file: arm-none-eabi-gcc for Cortex-M microcontrollers.
#
#   cmake -S OUT -B build -DCMAKE_TOOLCHAIN_FILE=OUT/vmcu_runtime/targets/arm-none-eabi.cmake -DVMCU_CPU=cortex-m4
#
# VMCU_CPU picks the core and its floating-point unit (hard-float ABI):
#   cortex-m4  -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16
#   cortex-m7  -mcpu=cortex-m7 -mthumb -mfloat-abi=hard -mfpu=fpv5-d16
# Both cores have the DSP extension, so gcc defines __ARM_FEATURE_DSP and the runtime's
# SMLAD/SXTB16 paths are compiled in. Every function and object gets its own section so that
# an executable linked with -Wl,--gc-sections keeps only the kernels a model uses.

set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
set(CMAKE_AR arm-none-eabi-ar CACHE FILEPATH "Archiver")
set(CMAKE_RANLIB arm-none-eabi-ranlib CACHE FILEPATH "Archive indexer")

# There is no operating system to link a test executable against: check the compiler by
# building a static library instead.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(VMCU_CPU cortex-m4 CACHE STRING "Cortex-M core to build for: cortex-m4 or cortex-m7")
set_property(CACHE VMCU_CPU PROPERTY STRINGS cortex-m4 cortex-m7)
# try_compile() projects read this file again; hand them the same core.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES VMCU_CPU)

if(VMCU_CPU STREQUAL "cortex-m4")
  set(VMCU_CPU_FLAGS "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
elseif(VMCU_CPU STREQUAL "cortex-m7")
  set(VMCU_CPU_FLAGS "-mcpu=cortex-m7 -mthumb -mfloat-abi=hard -mfpu=fpv5-d16")
else()
  message(FATAL_ERROR "VMCU_CPU must be cortex-m4 or cortex-m7, not '${VMCU_CPU}'")
endif()

set(CMAKE_C_FLAGS_INIT "${VMCU_CPU_FLAGS} -ffunction-sections -fdata-sections")
set(CMAKE_CXX_FLAGS_INIT "${VMCU_CPU_FLAGS} -ffunction-sections -fdata-sections")
set(CMAKE_ASM_FLAGS_INIT "${VMCU_CPU_FLAGS}")

# Programs come from the host; headers and libraries only from the cross toolchain.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
