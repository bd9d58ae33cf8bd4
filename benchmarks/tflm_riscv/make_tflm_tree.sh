#!/bin/bash
# Write a TensorFlow Lite Micro source tree with its reference kernels (no OPTIMIZED_KERNEL_DIR)
# for run_tflm.py, from bare git clones, so that no step needs the network TFLM's Makefile uses.
#
# MIRRORS holds one bare clone per repository, named <owner>+<name>/repo, e.g.
#   git clone --bare https://github.com/tensorflow/tflite-micro $MIRRORS/tensorflow+tflite-micro/repo
# for tensorflow/tflite-micro, google/flatbuffers, google/gemmlowp, google/ruy and
# mborgerding/kissfft. The versions of the last four are the ones the chosen TFLM commit pins
# in its download scripts, read from them here.
#
#   MIRRORS=... ./make_tflm_tree.sh OUT [TFLM_COMMIT]     (TFLM_COMMIT defaults to 90b983c2)
#
# OUT gets src/ (TFLM with its downloads unpacked) and tree/ (create_tflm_tree.py's output, the
# TFLM_TREE of run_tflm.py). create_tflm_tree.py runs TFLM's Makefile for its default (host)
# target: the reference kernels and the portable core are the same files for any target, and the
# riscv32_generic target would download a toolchain. The python running it needs numpy and
# Pillow (the Makefile's example rules import them even when only listing sources): PYTHON.
set -euo pipefail
if [ -z "${MIRRORS:-}" ] || [ $# -lt 1 ]; then
  echo "usage: MIRRORS=<folder of bare clones> $0 OUT [TFLM_COMMIT]" >&2
  exit 2
fi
out=$1
commit=${2:-90b983c2b3f1480642e040bbd2ddb37b998f3424}
python=${PYTHON:-python3}
tflm_git=$MIRRORS/tensorflow+tflite-micro/repo
src=$out/src
rm -rf "$src" "$out/tree"
mkdir -p "$src"
git --git-dir="$tflm_git" archive "$commit" | tar -x -C "$src"
git --git-dir="$tflm_git" rev-parse "$commit" >"$out/TFLM_COMMIT"

make_dir=$src/tensorflow/lite/micro/tools/make
downloads=$make_dir/downloads
mkdir -p "$downloads/pigweed"  # only TFLM's tests use pigweed; the folder keeps the Makefile from cloning it
flatbuffers=$(sed -n 's/^ *ZIP_PREFIX="\(v[0-9.]*\)"/\1/p' "$make_dir/flatbuffers_download.sh")
archive_of() { grep -m1 -oE "$1/archive/(refs/tags/)?[0-9a-zv]+" "$make_dir/third_party_downloads.inc" \
  | sed 's|.*/||'; }
gemmlowp=$(archive_of gemmlowp)
ruy=$(archive_of ruy)
kissfft=$(archive_of kissfft)
echo "TFLM $(cat "$out/TFLM_COMMIT"); flatbuffers $flatbuffers, gemmlowp $gemmlowp, ruy $ruy, kissfft $kissfft"

unpack() { mkdir -p "$2"; git --git-dir="$MIRRORS/$1/repo" archive "$3" | tar -x -C "$2"; }
unpack google+flatbuffers "$downloads/flatbuffers" "$flatbuffers"
# What flatbuffers_download.sh does after unpacking: drop Bazel files, apply TFLM's patch.
(cd "$downloads/flatbuffers" && find . \( -name BUILD -o -name BUILD.bazel \) -delete \
  && patch -s -p1 <"$make_dir/flatbuffers.patch")
unpack google+gemmlowp "$downloads/gemmlowp" "$gemmlowp"
unpack google+ruy "$downloads/ruy" "$ruy"
unpack mborgerding+kissfft "$downloads/kissfft" "$kissfft"
(cd "$downloads/kissfft" && patch -s -p1 <"$src/third_party/kissfft/kissfft.patch")

cd "$src"
PATH=$(dirname "$(command -v "$python")"):$PATH "$python" \
  tensorflow/lite/micro/tools/project_generation/create_tflm_tree.py "$out/tree"
cp "$out/TFLM_COMMIT" "$out/tree/TFLM_COMMIT"
echo "TFLM tree: $out/tree"
