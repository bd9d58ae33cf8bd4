#!/usr/bin/env bash
# Installs everything the test suite needs on a fresh Debian machine, then runs the whole suite.
# The same command runs locally and in CI (.ci/run calls this file).
set -euo pipefail
cd "$(dirname "$0")/.."

apt_packages=(cmake ninja-build device-tree-compiler gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib qemu-system-arm
              gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-system-misc)
missing=()
for pkg in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq -o=Dpkg::Use-Pty=0 --no-install-recommends "${missing[@]}" >/dev/null
fi

python3 -m venv .venv
.venv/bin/pip install -q --upgrade pip
.venv/bin/pip install -q -e '.[test]'
export PATH="$PWD/.venv/bin:$PATH"  # the console scripts (vmcu-convert, ...) that tests run
# one worker per core (pytest-xdist): the tests, QEMU builds and runs included, are independent
exec .venv/bin/python -m pytest -q -p no:cacheprovider -n auto "$@"
