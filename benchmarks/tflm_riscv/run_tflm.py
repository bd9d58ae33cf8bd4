"""TensorFlow Lite Micro's reference kernels on qemu-riscv32, beside our generated C: instructions
per inference of each shared model, on the same board, compiler, flags and seeded input.

Why: the RISC-V target has no vendor-optimized TFLM kernels, so the fair anchor for our RV32IMAC
figures is TFLM as it ships (its reference kernels), built exactly as vmcu-validate builds ours:
the project's riscv32-unknown-elf.cmake toolchain file (riscv64-unknown-elf-gcc + picolibc,
-march=rv32imac -mabi=ilp32), CMake Release, the riscv-virt board support (minstret counted around
Invoke() as vmcu-validate counts vmcu_invoke()), and QEMU's virt machine with -icount shift=0.
Every run's outputs must equal the tflite-micro Python package's (TFLM's reference kernels on the
host) for the same input, else the figure is not recorded as valid.

1. A TFLM source tree (once, ~20 s), from bare git clones of tflite-micro and its third-party
   repositories (see make_tflm_tree.sh for which and how they are named):
       MIRRORS=<clones> PYTHON=<python with numpy, Pillow> benchmarks/tflm_riscv/make_tflm_tree.sh OUT
2. Measure (first build ~2-3 min on 2 cores), with the project's environment (tflite-micro installed):
       TFLM_TREE=OUT/tree python benchmarks/tflm_riscv/run_tflm.py [MODEL.tflite ...] [--build DIR]
   Models default to the shared models (../shared/models beside the repository; none there: nothing
   is measured). Writes benchmarks/tflm_riscv/results.json, read by benchmarks/cores.py.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.shared_models import shared_models  # noqa: E402

RESULTS = HERE / "results.json"
TARGET = "qemu-riscv32"


def c_array(name: str, data: bytes) -> str:
    rows = [", ".join(str(b) for b in data[i:i + 32]) for i in range(0, len(data), 32)]
    return f"alignas(16) extern const unsigned char {name}[{len(data)}] = {{\n" + ",\n".join(rows) + "\n};\n"


def model_source(model: bytes, inputs: list[np.ndarray]) -> str:
    """The flatbuffer and the inputs, as main.cc expects them."""
    parts = ["// Written by run_tflm.py.\n", c_array("g_model", model)]
    raw = [np.ascontiguousarray(x).tobytes() for x in inputs]
    parts += [c_array(f"g_input{i}", data) for i, data in enumerate(raw)]
    names = ", ".join(f"g_input{i}" for i in range(len(raw)))
    sizes = ", ".join(f"{len(data)}u" for data in raw)
    parts.append(f"extern const unsigned char *const g_inputs[] = {{{names}}};\n"
                 f"extern const unsigned int g_input_bytes[] = {{{sizes}}};\n"
                 f"extern const unsigned int g_num_inputs = {len(raw)}u;\n")
    return "".join(parts)


def seeded_inputs(model: Path, seed: int) -> tuple[list[np.ndarray], int]:
    """The inputs vmcu-validate MODEL --target qemu-riscv32 --seed SEED feeds (in the model's own
    input types: a float input stays float, TFLM then runs the model's QUANTIZE), and the number
    of outputs."""
    from vmcu_reference.inputs import random_inputs
    from vmcu_tflite.pipeline import compile_model
    from vmcu_tflite.validate.targets import TARGETS

    program = compile_model(model, "vmcu", True, tuning=TARGETS[TARGET].tuning)
    return random_inputs(program.graph, seed), len(program.graph.outputs)


def run(cmd: list[str], timeout: float | None = None) -> str:
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:3])} ... exit {done.returncode}:\n{(done.stdout + done.stderr)[-3000:]}")
    return done.stdout + done.stderr


def parse(text: str) -> dict:
    """main.cc's lines -> {status, measure: {...}, arena_used, outputs: [arrays]}."""
    found: dict = {"measure": {}, "outputs": []}
    for line in text.splitlines():
        line = line.strip()
        if m := re.fullmatch(r"measure (\w+) (\d+)", line):
            found["measure"][m.group(1)] = int(m.group(2))
        elif m := re.fullmatch(r"(status|arena_used) (\d+)", line):
            found[m.group(1)] = int(m.group(2))
        elif m := re.fullmatch(r"output \d+ (int8|float):(.*)", line):
            values = m.group(2).split()
            found["outputs"].append(np.array([int(v, 16) for v in values], np.uint32).view(np.float32)
                                    if m.group(1) == "float" else np.array([int(v) for v in values], np.int8))
    return found


def compile_flags(build: Path) -> list[str]:
    """The flags a reference kernel (conv.cc) was compiled with, without paths and defines of
    include folders: what the JSON records as `cxx_flags`."""
    commands = json.loads((build / "compile_commands.json").read_text())
    entry = next(c for c in commands if c["file"].endswith("/kernels/conv.cc"))
    words = entry["command"].split()[1:]
    kept, skip = [], False
    for word in words:
        if skip:
            skip = False
        elif word in ("-o", "-c", "-isystem", "-I"):
            skip = True
        elif not word.startswith(("-I", "/")):
            kept.append(word)
    return kept


def measure(models: list[Path], tree: Path, build: Path, seed: int, jobs: int) -> dict:
    from vmcu_tflite.oracle import run_tflm

    build.mkdir(parents=True, exist_ok=True)
    model_cc = build / "model.cc"
    model_cc.write_text(model_source(b"", []))
    run(["cmake", "-S", str(HERE), "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
         f"-DCMAKE_TOOLCHAIN_FILE={REPO / 'csrc/targets/riscv32-unknown-elf.cmake'}",
         f"-DVMCU_TARGETS={REPO / 'csrc/targets'}", f"-DTFLM_TREE={tree}", f"-DMODEL_CC={model_cc}",
         "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"])
    results: dict = {}
    for model in models:
        inputs, num_outputs = seeded_inputs(model, seed)
        data = model.read_bytes()
        model_cc.write_text(model_source(data, inputs))
        entry: dict = {}
        try:
            run(["cmake", "--build", str(build), "-j", str(jobs)])
            text = run(["qemu-system-riscv32", "-bios", "none", "-M", "virt", "-display", "none", "-monitor", "none",
                        "-serial", "null", "-icount", "shift=0", "-semihosting-config", "enable=on,target=native",
                        "-kernel", str(build / "tflm_riscv")], timeout=3600)
        except (RuntimeError, subprocess.TimeoutExpired) as error:
            entry["error"] = str(error)[-2000:]
        else:
            got = parse(text)
            theirs, _ = run_tflm(data, inputs, num_outputs)
            match = got.get("status") == 0 and len(got["outputs"]) == len(theirs) and all(
                a.tobytes() == np.asarray(b).reshape(-1).tobytes() for a, b in zip(got["outputs"], theirs))
            entry = {"instructions": got["measure"].get("instructions"), "arena_used_bytes": got.get("arena_used"),
                     "stack_bytes": got["measure"].get("stack_bytes"), "status": got.get("status"),
                     "outputs_match_tflite_micro_python": match}
            if not match:
                entry["error"] = "outputs differ from the tflite-micro Python package's"
        results[model.stem] = entry
        print(f"{model.stem}: {entry}", flush=True)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", type=Path, nargs="*", help="default: the shared models")
    parser.add_argument("--tree", type=Path, default=os.environ.get("TFLM_TREE"),
                        help="make_tflm_tree.sh's OUT/tree (default: $TFLM_TREE)")
    parser.add_argument("--build", type=Path, help="CMake build folder, reused across runs (default: a temporary one)")
    parser.add_argument("--seed", type=int, default=3, help="input seed, as vmcu-validate --seed (default 3)")
    parser.add_argument("-o", "--output", type=Path, default=RESULTS)
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()
    if args.tree is None or not (args.tree / "tensorflow/lite/micro").is_dir():
        parser.error("give the TFLM tree (--tree or TFLM_TREE): make_tflm_tree.sh writes one")
    models = args.models or shared_models()
    if not models:
        return 0
    with tempfile.TemporaryDirectory(prefix="tflm-riscv-") as scratch:
        build = args.build or Path(scratch)
        results = measure(models, args.tree, build, args.seed, args.jobs)
        flags = compile_flags(build)
    compiler = run(["riscv64-unknown-elf-gcc", "--version"]).splitlines()[0]
    qemu = run(["qemu-system-riscv32", "--version"]).splitlines()[0]
    from importlib.metadata import version
    commit_file = args.tree / "TFLM_COMMIT"
    record = {
        "what": "instructions of one MicroInterpreter::Invoke() with TFLM's reference kernels on qemu-riscv32",
        "tflm_commit": commit_file.read_text().strip() if commit_file.exists() else "unknown",
        "compiler": compiler, "cxx_flags": flags, "cmake_build_type": "Release", "board": "riscv-virt",
        "qemu": f"{qemu}: -M virt -bios none -icount shift=0", "seed": args.seed,
        "expected_outputs_from": f"tflite-micro {version('tflite-micro')} (Python package)", "models": results,
    }
    previous = json.loads(args.output.read_text()) if args.output.exists() else {}
    if previous.get("tflm_commit") == record["tflm_commit"] and previous.get("seed") == args.seed:
        record["models"] = {**previous.get("models", {}), **results}  # a run of a few models keeps the others
    args.output.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {args.output}")
    return 0 if all("error" not in r for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
