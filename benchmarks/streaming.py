"""Streamed inputs: the pool, the whole program's RAM and the instructions with and without, beside msf-CNN.

Usage: python benchmarks/streaming.py [--out BENCHMARKS.md] [--no-run]

For every real model (../shared/models, skipped when absent): the default plan, the plan with every
input streamed (`--stream-input`), and with recomputation allowed as well; their pools and MACs,
the step that sets the streamed pool and its arithmetic (`vmcu_tflite/peak.py`). Then, built and run
bit-exact (or the script stops): instructions of vmcu_invoke()/vmcu_invoke_streamed() on
qemu-cortex-m4 (rows served from flash through the callback; also with recomputation), and the whole program's RAM on
qemu-stm32f405 with the camera's line buffer (one row) counted. msf-CNN's published peaks (which
count no input image either) stand beside them. Writes the "streaming" section of --out.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.sections import write_section  # noqa: E402
from benchmarks.shared_models import shared_models  # noqa: E402
from vmcu_tflite.errors import BudgetError  # noqa: E402
from vmcu_tflite.peak import explain_peak  # noqa: E402
from vmcu_tflite.pipeline import Program, compile_model  # noqa: E402
from vmcu_tflite.validate.run import validate_program  # noqa: E402
from vmcu_tflite.validate.targets import TARGETS  # noqa: E402

SPEED, RAM = "qemu-cortex-m4", "qemu-stm32f405"
BOARDS = ("qemu-cortex-m0", "qemu-cortex-m3", "qemu-cortex-m4", "qemu-cortex-m7", "qemu-cortex-m33", "qemu-cortex-m55",
          "qemu-riscv32", "mbed-qemu-cortex-m4")
# msf-CNN (Huang and Baccelli, NeurIPS 2025), github.com/TinyPART/msf-CNN, MFC_models_20250112/*/result.json:
# (peak bytes, its MACs / the model's), smallest peak last.
MSF_CNN = {
    "mcunet-320kb-1mb_imagenet": [(217_891, 1.04), (94_224, 1.45), (63_456, 2.02), (51_164, 2.69)],
    "mcunet-vww1": [(45_283, 1.04), (26_240, 1.11), (17_904, 1.35), (15_368, 1.96)],
}


def all_inputs(path: Path) -> list[int]:
    return list(range(len(compile_model(path, fuse=False).graph.inputs)))


def run(path: Path, program: Program, target: str) -> dict[str, int]:
    result = validate_program(program, path.read_bytes(), TARGETS[target])
    if not (result.status == 0 and result.matches_reference and result.matches_tflm):
        raise SystemExit(f"{path.name} on {target} ({'streamed' if program.plan.streamed_io else 'whole'}) "
                         "is not bit-exact")
    return result.measurements


def every_board(path: Path, streams: list[int]) -> list[str]:
    """The streamed plan (each core's kernel tuning) on every board: instructions, or why it does not fit."""
    cells = []
    for board in BOARDS:
        target = TARGETS[board]
        program = compile_model(path, stream_inputs=streams, tuning=target.tuning, widened=target.widened_weights)
        try:
            result = validate_program(program, path.read_bytes(), target)
        except BudgetError:
            cells.append("does not fit")
            continue
        if not (result.status == 0 and result.matches_reference and result.matches_tflm):
            raise SystemExit(f"{path.name} streamed on {board} is not bit-exact")
        cells.append(f"{result.measurements['instructions']:,}")
        print(f"{path.name} streamed on {board}: {cells[-1]}")
    return cells


def recomputed(program: Program) -> int:
    return sum(f.recomputed_macs for f in program.plan.fusion if f.fused and f.recompute)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "BENCHMARKS.md")
    parser.add_argument("--no-run", action="store_true", help="plans only: leave the measured columns out")
    args = parser.parse_args(argv)
    models = shared_models()
    if not models:
        return 0
    pools = ["| model | pool, input whole | pool, input streamed | saved | MACs | with --allow-recompute | "
             "its MACs / the model's | msf-CNN peaks (MACs / the model's) |",
             "|---|---:|---:|---:|---:|---:|---:|---|"]
    floors, measured = [], ["| model | vmcu_invoke(), input whole | vmcu_invoke_streamed() | streaming costs | "
                            f"streamed with --allow-recompute | RAM on {RAM}, input whole | "
                            "streamed, one camera row counted | saved |",
                            "|---|---:|---:|---:|---:|---:|---:|---:|"]
    boards = ["| model | " + " | ".join(b.removeprefix("qemu-") for b in BOARDS) + " |", "|---|" + "---:|" * len(BOARDS)]
    for path in models:
        streams = all_inputs(path)
        whole = compile_model(path)
        streamed = compile_model(path, stream_inputs=streams)
        allowed = compile_model(path, stream_inputs=streams, recompute=True)
        extra = recomputed(allowed)
        peers = "; ".join(f"{b:,} ({r:.2f}x)" for b, r in MSF_CNN.get(path.stem, [])) or "-"
        pools.append(f"| {path.stem} | {whole.plan.pool_bytes:,} | {streamed.plan.pool_bytes:,} | "
                     f"{1 - streamed.plan.pool_bytes / whole.plan.pool_bytes:.1%} | {streamed.plan.macs:,} | "
                     f"{allowed.plan.pool_bytes:,} | {(allowed.plan.macs + extra) / allowed.plan.macs:.2f}x | {peers} |")
        floors.append(f"- {path.stem}, streamed: {explain_peak(streamed)}.")
        if extra:
            floors.append(f"- {path.stem}, streamed with --allow-recompute: {explain_peak(allowed)}.")
        print(f"planned {path.name}: {whole.plan.pool_bytes} -> {streamed.plan.pool_bytes} "
              f"({allowed.plan.pool_bytes} with recompute)")
        if args.no_run:
            continue
        fast, slow = run(path, whole, SPEED), run(path, streamed, SPEED)
        again = f"{run(path, allowed, SPEED)['instructions']:,}" if extra else "as streamed"
        small = TARGETS[RAM].widened_weights  # its flash: no int16 filter copies (RAM is the same either way)
        ram_whole = run(path, compile_model(path, widened=small), RAM)
        ram_streamed = run(path, compile_model(path, stream_inputs=streams, widened=small), RAM)
        line = max((p.row_bytes for p in streamed.plan.streamed_io.inputs), default=0)
        total_whole, total_streamed = ram_whole["ram_total_bytes"], ram_streamed["ram_total_bytes"] + line
        measured.append(f"| {path.stem} | {fast['instructions']:,} | {slow['instructions']:,} | "
                        f"{slow['instructions'] / fast['instructions'] - 1:+.2%} | {again} | {total_whole:,} | "
                        f"{total_streamed:,} (row {line:,}) | {total_whole - total_streamed:,} |")
        print(f"measured {path.name}: {fast['instructions']} -> {slow['instructions']} instructions, "
              f"RAM {total_whole} -> {total_streamed}")
        boards.append(f"| {path.stem} | " + " | ".join(every_board(path, streams)) + " |")
    section = [
        "## Streamed inputs (--stream-input)", "",
        "Measured by `python benchmarks/streaming.py`. With `--stream-input`, the application hands the input "
        "over row by row through a callback (`vmcu_invoke_streamed()`), each row once and in order, as a camera's "
        "line interrupt or a DMA half-buffer delivers it; a chain that starts at the input pulls the rows into a "
        "ring as tall as its first window, so the input never exists whole and the planner chooses its chains "
        "again without it. Elsewhere the rows go to the input's place in the pool (no saving). Peers compared "
        "like for like: msf-CNN (Huang and Baccelli, NeurIPS 2025; its published results, "
        "github.com/TinyPART/msf-CNN `MFC_models_20250112/*/result.json`) counts no input image either; it "
        "buys RAM with recomputation, our chains do every multiply-accumulate once (the MACs column) unless "
        "`--allow-recompute` asks otherwise.", "", *pools, "",
        "What sets each streamed pool: the step that holds the most and what it holds (`vmcu_tflite/peak.py`; "
        "also the last line of report.md).", "", *floors, "",
        "Below these floors: in a chain that pulls the input, the ring its last stage reads is a line buffer "
        "(its last new row made a few pixels at a time just ahead of the windows: the window's rows less one "
        "and about a window's width of pixels); every other ring is as tall as the window that reads it, the "
        "least a schedule that makes whole rows on demand can keep, and a tensor a residual ADD reads again "
        "stays whole. Lower still needs line buffers in the chain's other rings, or recomputation: with "
        "`--allow-recompute`, a chain that pulls the input keeps no ring of an inverted bottleneck's expanded "
        "pixels but makes them again for each tile of its depthwise windows (their rows and their halo "
        "columns) from a ring of the narrow pixels before the expansion, as tall as the depthwise window "
        "(MCUNet-320KB-ImageNet's stem: 7 rows of 8 channels instead of 6 rows and 10 pixels of 24), and the "
        "chains after it recompute their first stage where their rings would not fit."]
    if not args.no_run:
        section += ["", f"Instructions under `-icount shift=0` on `{SPEED}` (default plans and, where it "
                    "recomputes, the streamed plan with `--allow-recompute`; rows served from flash "
                    "through the callback, every run bit-exact with the reference interpreter and TFLite Micro), and "
                    f"the whole program's RAM on `{RAM}` (pool, other .data/.bss, measured stack and heap), with one "
                    "row of the camera's line buffer added to the streamed program (the harness serves rows "
                    "straight from flash, a camera needs a line).", "", *measured, "",
                    "The streamed plans on every board (`vmcu-validate --stream-input`, each core's kernel tuning, "
                    "rows served from flash; the Mbed CE example takes them from its simulated camera), instructions "
                    "per inference, every run bit-exact:", "", *boards]
    write_section(args.out, "streaming", section)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
