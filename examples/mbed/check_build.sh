#!/bin/sh
# Compile check of this Mbed example WITHOUT Mbed OS (which cannot be fetched offline):
# converts a model, then builds CMakeLists.txt with -DVMCU_MBED_STAND_IN=ON, i.e. main.cpp
# against stand-in/mbed.h (a do-nothing Timer and sleep_for), and the generated model and
# runtime, all with arm-none-eabi-gcc/g++ and Mbed's GCC_ARM Cortex-M4F flags, linked with
# newlib-nano (nosys). What this proves and what it does not: README.md.
#
#   examples/mbed/check_build.sh [MODEL.tflite] [BUILD_DIR]
set -eu

here=$(cd "$(dirname "$0")" && pwd)
model=${1:-$here/../../models/conv_stack.tflite}
build=${2:-$(mktemp -d "${TMPDIR:-/tmp}/vmcu-mbed-check.XXXXXX")}

for tool in arm-none-eabi-gcc arm-none-eabi-g++ cmake "${VMCU_CONVERT:-vmcu-convert}"; do
    command -v "$tool" >/dev/null || { echo "check_build.sh: $tool is not installed" >&2; exit 2; }
done

"${VMCU_CONVERT:-vmcu-convert}" "$model" -o "$build/model" --target cortex-m4 >/dev/null
cmake -S "$here" -B "$build/app" -DVMCU_MBED_STAND_IN=ON \
    -DVMCU_MODEL_DIR="$build/model" \
    -DCMAKE_SYSTEM_NAME=Generic -DCMAKE_TRY_COMPILE_TARGET_TYPE=STATIC_LIBRARY \
    -DCMAKE_C_COMPILER=arm-none-eabi-gcc -DCMAKE_CXX_COMPILER=arm-none-eabi-g++ >/dev/null
cmake --build "$build/app" -j 2 >/dev/null || cmake --build "$build/app" -j 1

elf=$build/app/vmcu-mbed-example
arm-none-eabi-size "$elf"
echo "check_build.sh: compiled and linked $(basename "$model") with the Mbed stand-in (not Mbed OS): $elf"
