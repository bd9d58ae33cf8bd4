"""What the runtime's checks cost: the tables check of every run and vmcu_verify_model().

Usage: python benchmarks/integrity.py [--out BENCHMARKS.md]

For every real model (../shared/models, skipped when absent), the default plan on qemu-cortex-m4:
`vmcu-validate`'s instructions of vmcu_invoke() and of vmcu_verify_model() (bit-exact with the
reference interpreter and TFLite Micro, or the script stops), and from a profiled build the
instructions vmcu_invoke() spends before its first kernel call: the header CRC, the tables check
and every step's check. Writes the "integrity" section of --out (benchmarks/sections.py).
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

TARGET = "qemu-cortex-m4"


def measure(path: Path) -> dict[str, int]:
    program = compile_model(path)
    result = validate_program(program, path.read_bytes(), TARGETS[TARGET], profile=True)
    if not (result.status == 0 and result.matches_reference and result.matches_tflm):
        raise SystemExit(f"{path.name} on {TARGET} is not bit-exact")
    m = result.measurements
    found = {"steps": len(program.steps), "invoke": m["instructions"], "checks": m["checks_instructions"],
             "verify": m["verify_instructions"], "model_flash": m["flash_model_bytes"]}
    print(f"measured {path.name}: {found}")
    return found


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "BENCHMARKS.md")
    args = parser.parse_args(argv)
    models = shared_models()
    if not models:
        return 0
    table = ["| model | steps | vmcu_invoke() | its checks before the first kernel | share | "
             "vmcu_verify_model() | model flash it covers, bytes | per byte |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for path in models:
        m = measure(path)
        table.append(f"| {path.stem} | {m['steps']} | {m['invoke']:,} | {m['checks']:,} | "
                     f"{100 * m['checks'] / m['invoke']:.3f}% | {m['verify']:,} | {m['model_flash']:,} | "
                     f"{m['verify'] / m['model_flash']:.1f} |")
    write_section(args.out, "integrity", [
        "## Integrity", "",
        f"Measured by `python benchmarks/integrity.py` on `{TARGET}` (instructions under `-icount shift=0`, "
        "default plans, every run bit-exact). Every vmcu_invoke() first checks the model struct's counts against "
        "their CRC, every table against the buffers and every step's params against what its kernel touches "
        "(csrc/include/vmcu/vmcu.h): the fourth column, from a profiled build, is what that costs before the "
        "first kernel runs. vmcu_verify_model(), called on demand (at boot, or periodically as a class B flash "
        "self-test), adds a CRC-32 over every integer of the tables and every weight and constant; the last "
        "columns compare it with the model's flash (tables, weights and generated kernels: the CRC reads all but "
        "the kernels' code).", "", *table])
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
