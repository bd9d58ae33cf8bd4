"""What Zephyr costs: the Zephyr example against the bare-metal harness, same models, same boards.

Usage: python benchmarks/zephyr.py [--out BENCHMARKS.md]

Each model below runs with `vmcu-validate` on a zephyr-qemu-* target (examples/zephyr, this
repository as a Zephyr module, the inference in its own thread) and on the bare-metal harness
of the same QEMU board; all bit-exact with the reference interpreter and TFLite Micro or the
script stops. The real models come from ../shared/models (skipped when absent), the SVDF fixture
from models/ (its state carried over 3 runs). Writes the "zephyr" section of --out
(benchmarks/sections.py); README.md points to it rather than quoting it, so one run keeps both
true. Needs the Zephyr source (../shared/zephyr, $VMCU_ZEPHYR_BASE) and the tools the targets
need: without them the script says so and writes nothing.
"""
from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.sections import write_section  # noqa: E402
from benchmarks.shared_models import shared_models  # noqa: E402
from vmcu_tflite.errors import UsageError  # noqa: E402
from vmcu_tflite.pipeline import compile_model  # noqa: E402
from vmcu_tflite.validate.run import sequence_runs, validate_program  # noqa: E402
from vmcu_tflite.validate.targets import TARGETS  # noqa: E402
from vmcu_tflite.validate.zephyr import TOOLS, find_zephyr_source  # noqa: E402

# (model, Zephyr target): the acceptance runs; KWS on all three cores, the rest on the M4
RUNS = (("mlperf-kws-dscnn", "zephyr-qemu-cortex-m4"), ("mcunet-vww1", "zephyr-qemu-cortex-m4"),
        ("svdf_keyword", "zephyr-qemu-cortex-m4"), ("mlperf-kws-dscnn", "zephyr-qemu-cortex-m3"),
        ("mlperf-kws-dscnn", "zephyr-qemu-cortex-m55"))
FIXTURES = ROOT / "models"


def model_path(name: str) -> Path | None:
    """A shared model when present, else a fixture of models/ (the SVDF one is always there)."""
    fixture = FIXTURES / f"{name}.tflite"
    if fixture.is_file():
        return fixture
    found = shared_models((name,))
    return found[0] if found else None


def bit_exact(result, path: Path, target: str) -> dict[str, int]:
    if not (result.status == 0 and result.matches_reference and result.matches_tflm):
        raise SystemExit(f"{path.name} on {target} is not bit-exact")
    m = result.measurements
    print(f"measured {path.name} on {target}: {m.get('instructions', 0):,} instructions")
    return m


def measure(path: Path, zephyr: str) -> tuple[int, dict[str, int], dict[str, int]]:
    """The runs of the sequence, the Zephyr run's and the bare-metal run's measurements; compiled
    once for the board's core (as vmcu-validate compiles for the target), so both run the very
    same program."""
    target = TARGETS[zephyr]
    program = compile_model(path, tuning=target.tuning)
    model = path.read_bytes()
    ours = bit_exact(validate_program(program, model, target), path, zephyr)
    bare = bit_exact(validate_program(program, model, TARGETS[target.compare_with]), path, target.compare_with)
    return sequence_runs(program), ours, bare


def row(name: str, zephyr: str, runs: int, ours: dict[str, int], bare: dict[str, int]) -> str:
    core = zephyr.removeprefix("zephyr-qemu-")
    change = (ours["instructions"] - bare["instructions"]) / bare["instructions"]
    return (f"| {name} | {core} | {runs} | {ours['instructions']:,} | {bare['instructions']:,} | {change:+.2%} | yes | "
            f"{ours['pool_bytes']:,} | {ours['zephyr_data_bss_bytes']:,} | "
            f"{ours['thread_stack_reserved_bytes']:,} / {ours['stack_bytes']:,} | "
            f"{ours['flash_bytes']:,} (+{ours['flash_bytes'] - bare['flash_bytes']:,}) |")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "BENCHMARKS.md")
    args = parser.parse_args(argv)
    try:
        find_zephyr_source()
    except UsageError as error:
        print(f"nothing measured: {error}")
        return 0
    missing = [tool for tool in TOOLS if not shutil.which(tool)]
    if missing:
        print(f"nothing measured: {', '.join(missing)} not found")
        return 0
    table = ["| model | core | runs | vmcu_invoke() on Zephyr | on the bare-metal harness | difference | bit-exact "
             "| pool | Zephyr's own .data + .bss | thread stack reserved / used | flash (vs harness) |",
             "|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|"]
    for name, zephyr in RUNS:
        path = model_path(name)
        if path is None:
            continue
        runs, ours, bare = measure(path, zephyr)
        table.append(row(name, zephyr, runs, ours, bare))
    write_section(args.out, "zephyr", [
        "## Zephyr", "",
        "Measured by `python benchmarks/zephyr.py`: the example application (`examples/zephyr/`, this repository "
        "as a Zephyr module) built against Zephyr 4.1 at -O2 (`CONFIG_SPEED_OPTIMIZATIONS`) with its minimal "
        "libc and Debian's arm-none-eabi-gcc for `mps2/an386` (M4), `mps2/an385` (M3) and "
        "`mps3/corstone300/an547` (M55), run on QEMU beside the bare-metal "
        "harness on the same board (`qemu-cortex-m4`, `-m3`, `-m55`); every run bit-exact with the reference "
        "interpreter and TFLite Micro (a model with state: its runs back to back, the state carried). Instructions "
        "under `-icount shift=0`: the Zephyr example reads `vmcu_invoke()`'s span from `k_cycle_get_32()` "
        "(SysTick, Zephyr's tick interrupts included) times QEMU's instructions per tick, the harness from "
        "SysTick; for a sequence, its last run. Bytes. \"Zephyr's own .data + .bss\" is the image's RAM without the "
        "pool, scratch, state and the inference thread's stack (kernel, drivers, main, idle and interrupt "
        "stacks); the stack used is the inference thread's high-water mark (printing included); flash is the "
        "whole image's.", "", *table])
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
