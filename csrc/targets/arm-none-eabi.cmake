# CMake toolchain file: arm-none-eabi-gcc for Cortex-M microcontrollers.
#
#   cmake -S OUT -B build -DCMAKE_TOOLCHAIN_FILE=OUT/vmcu_runtime/targets/arm-none-eabi.cmake -DVMCU_CPU=cortex-m4
#
# VMCU_CPU picks the core and its floating-point unit:
#   cortex-m0   -mcpu=cortex-m0 -mthumb -mfloat-abi=soft                   (ARMv6-M: no DSP, no FPU)
#   cortex-m3   -mcpu=cortex-m3 -mthumb -mfloat-abi=soft                   (ARMv7-M without DSP)
#   cortex-m4   -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16
#   cortex-m7   -mcpu=cortex-m7 -mthumb -mfloat-abi=hard -mfpu=fpv5-d16
#   cortex-m33  -mcpu=cortex-m33 -mthumb -mfloat-abi=hard -mfpu=fpv5-sp-d16 (ARMv8-M Mainline, DSP)
#   cortex-m55  -mcpu=cortex-m55 -mthumb -mfloat-abi=hard -mfpu=auto      (ARMv8.1-M, Helium/MVE)
# gcc defines __ARM_FEATURE_DSP on the M4, M7, M33 and M55, so the runtime's SMLAD/SXTB16 paths
# are compiled in there; the M0 and M3 build the portable C.

set(VMCU_CPU cortex-m4 CACHE STRING "Cortex-M core to build for: cortex-m0, -m3, -m4, -m7, -m33 or -m55")
set_property(CACHE VMCU_CPU PROPERTY STRINGS cortex-m0 cortex-m3 cortex-m4 cortex-m7 cortex-m33 cortex-m55)

if(VMCU_CPU STREQUAL "cortex-m0" OR VMCU_CPU STREQUAL "cortex-m3")
  set(VMCU_CPU_FLAGS "-mcpu=${VMCU_CPU} -mthumb -mfloat-abi=soft")
elseif(VMCU_CPU STREQUAL "cortex-m4")
  set(VMCU_CPU_FLAGS "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
elseif(VMCU_CPU STREQUAL "cortex-m7")
  set(VMCU_CPU_FLAGS "-mcpu=cortex-m7 -mthumb -mfloat-abi=hard -mfpu=fpv5-d16")
elseif(VMCU_CPU STREQUAL "cortex-m33")
  set(VMCU_CPU_FLAGS "-mcpu=cortex-m33 -mthumb -mfloat-abi=hard -mfpu=fpv5-sp-d16")
elseif(VMCU_CPU STREQUAL "cortex-m55")
  set(VMCU_CPU_FLAGS "-mcpu=cortex-m55 -mthumb -mfloat-abi=hard -mfpu=auto")
else()
  message(FATAL_ERROR "VMCU_CPU must be cortex-m0, cortex-m3, cortex-m4, cortex-m7, cortex-m33 or cortex-m55, "
                      "not '${VMCU_CPU}'")
endif()

include(${CMAKE_CURRENT_LIST_DIR}/gcc_cross.cmake)
vmcu_gcc_cross_toolchain(arm-none-eabi- arm)
