"""What Mbed costs: the Mbed example against the bare-metal harness, same models, same board.

Usage: python benchmarks/mbed.py [--out BENCHMARKS.md] [--readme README.md]

For the real models below (../shared/models, skipped when absent), `vmcu-validate` on
mbed-qemu-cortex-m4 (Mbed CE, full profile: the inference in an RTOS thread),
mbed-baremetal-qemu-cortex-m4 (Mbed CE, bare-metal profile) and qemu-cortex-m4 (the bare-metal
harness): all bit-exact with the reference interpreter and TFLite Micro or the script stops.
Writes the "mbed" section of --out and of --readme (benchmarks/sections.py). Needs the Mbed CE
source (../shared/mbed-ce, or $VMCU_MBED_OS).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.sections import write_section  # noqa: E402
from benchmarks.shared_models import shared_models  # noqa: E402
from vmcu_tflite.pipeline import compile_model  # noqa: E402
from vmcu_tflite.validate.run import validate_program  # noqa: E402
from vmcu_tflite.validate.targets import TARGETS  # noqa: E402

MODELS = ("mlperf-kws-dscnn", "mcunet-vww1")
RUNS = (("Mbed CE, full (RTOS thread)", "mbed-qemu-cortex-m4"), ("Mbed CE, bare-metal", "mbed-baremetal-qemu-cortex-m4"),
        ("bare-metal harness", "qemu-cortex-m4"))


def measure(path: Path) -> dict[str, dict[str, int]]:
    """Target name -> measurements, every run bit-exact."""
    program = compile_model(path)
    found = {}
    for _, target in RUNS:
        result = validate_program(program, path.read_bytes(), TARGETS[target])
        if not (result.status == 0 and result.matches_reference and result.matches_tflm):
            raise SystemExit(f"{path.name} on {target} is not bit-exact")
        found[target] = result.measurements
        print(f"measured {path.name} on {target}: {result.measurements.get('instructions', 0):,} instructions")
    return found


def rows(name: str, found: dict[str, dict[str, int]]) -> list[str]:
    bare = found["qemu-cortex-m4"]
    out = []
    for label, target in RUNS:
        m = found[target]
        other = m.get("mbed_data_bss_bytes", m.get("data_bss_without_pool_bytes", 0))
        thread = f"{m['thread_stack_reserved_bytes']:,} / {m['stack_bytes']:,}" if "thread_stack_reserved_bytes" in m \
            else f"- / {m['stack_bytes']:,}" if "stack_bytes" in m else "not measured"
        out.append(f"| {name} | {label} | {m['pool_bytes']:,} | {other:,} | {thread} | {m['heap_bytes']:,} | "
                   f"{m['flash_bytes']:,} (+{m['flash_bytes'] - bare['flash_bytes']:,}) | {m['instructions']:,} |")
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "BENCHMARKS.md")
    parser.add_argument("--readme", type=Path, default=ROOT / "README.md")
    args = parser.parse_args(argv)
    models = shared_models(MODELS)
    if not models:
        return 0
    found = {path.stem: measure(path) for path in models}
    table = ["| model | build | pool | other .data + .bss | thread stack reserved / used | heap | flash (vs harness) "
             "| instructions of vmcu_invoke() |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for name, runs in found.items():
        table += rows(name, runs)
    write_section(args.out, "mbed", [
        "## Mbed", "",
        "Measured by `python benchmarks/mbed.py`: the example application (`examples/mbed/`) built with Mbed CE "
        "7.0.101 for ARM_MPS2_M4 and run on QEMU's mps2-an386, the board of `qemu-cortex-m4`, beside the bare-metal "
        "harness on that board; every run bit-exact with the reference interpreter and TFLite Micro. Bytes. \"Other "
        ".data + .bss\" is Mbed's own (RTOS, drivers, stdio, main stack) for the Mbed builds and the harness's for "
        "the harness; the stack used is the inference thread's high-water mark (printing included), or the "
        "harness's main's (Mbed's bare-metal profile: not measured); the heap is Mbed's heap statistics' high-water "
        "mark or newlib's in use. Instructions under "
        "`-icount shift=0`: the Mbed example reads them from Mbed's microsecond Timer (to 1,000 instructions, the "
        "RTOS tick interrupts included), the harness from SysTick.", "", *table])
    kws = found.get("mlperf-kws-dscnn")
    if kws:
        full, bare = kws["mbed-qemu-cortex-m4"], kws["qemu-cortex-m4"]
        write_section(args.readme, "mbed", [
            f"Measured on the keyword-spotting model (`python benchmarks/mbed.py`, BENCHMARKS.md): with Mbed's RTOS "
            f"the same pool ({full['pool_bytes']:,} bytes) and the same bits; Mbed adds "
            f"{full['mbed_data_bss_bytes'] - bare['data_bss_without_pool_bytes']:,} bytes of its own .data + .bss, "
            f"the inference thread's stack ({full['thread_stack_reserved_bytes']:,} reserved, "
            f"{full['stack_bytes']:,} used), {full['flash_bytes'] - bare['flash_bytes']:,} bytes of flash and "
            f"{full['instructions'] - bare['instructions']:+,} instructions per inference "
            f"({full['instructions']:,} against {bare['instructions']:,})."])
    print(f"wrote {args.out} and {args.readme}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
