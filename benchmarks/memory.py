"""Peak activation RAM of every model, ours against TFLite Micro and the whole-tensor plan.

Usage: python benchmarks/memory.py [--out BENCHMARKS.md]

Measures, for every model in models/ and ../shared/models (when present): TFLite Micro's arena
(head = activations, total = with persistent data) through the `tflite-micro` package, our
whole-tensor plan, our vMCU plan and the planning time. Then the paper's single-layer study:
nine pointwise convolutions and four fully connected layers, each built as a one-layer model,
planned both ways and run through the reference interpreter against TFLite Micro. Writes the
Markdown tables to --out (default: BENCHMARKS.md at the repository root). Finally the paper's
multi-layer study (benchmarks/blocks.py): every inverted bottleneck of MCUNet-5fps-VWW (S1-S8) and
MCUNet-320KB-ImageNet (B1-B17) as a one-block model, fused and not, next to the whole-tensor and
TinyEngine-style (in-place depthwise) plans, and how far the VWW blocks can grow in TinyEngine's RAM
(benchmarks/exploration.png).
"""
from __future__ import annotations

import argparse
import sys
import time
from functools import cache
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.blocks import IMAGENET, VWW, exploration, latency_rows, memory_rows  # noqa: E402
from benchmarks.sections import section, section_names  # noqa: E402
from tests.tflite_builder import ModelBuilder, random_bias, random_weights  # noqa: E402
from vmcu_reference.inputs import random_inputs  # noqa: E402
from vmcu_reference.interpreter import Interpreter  # noqa: E402
from vmcu_tflite.chain import is_depthwise, is_transpose  # noqa: E402
from vmcu_tflite.errors import ModelError  # noqa: E402
from vmcu_tflite.oracle import OracleError, run_tflm, tflm_arena_bytes  # noqa: E402
from vmcu_tflite.pipeline import compile_model  # noqa: E402
from vmcu_tflite.planner.vmcu import plan_vmcu  # noqa: E402

# (H/W, C, K): one from the paper (80, 16, 16), the rest MCUNet-320KB-ImageNet's pointwise layers.
POINTWISE = [(80, 16, 16), (88, 16, 16), (88, 8, 24), (88, 16, 8), (44, 16, 80), (44, 80, 16), (44, 24, 16),
             (22, 24, 120), (22, 120, 24)]
# (rows, K, N): MLPerf AD01's encoder and decoder ends, a square layer, a batched classifier.
FULLY_CONNECTED = [(1, 640, 128), (1, 128, 640), (1, 256, 256), (16, 64, 12)]


# RAM of TinyEngine's own builds (bytes: .data + .bss + stack + heap), measured once on qemu mps2-an386
# with the same compiler; latency.py cites its instruction counts from the same runs.
TINYENGINE_RAM = {"mcunet-320kb-1mb_imagenet": 267_756, "mcunet-vww1": 95_396}


@cache
def refused() -> dict[str, str]:
    """Fixtures of models/ we refuse today (one whose int16 operator is not written yet): name -> why."""
    found = {}
    for path in sorted((ROOT / "models").glob("*.tflite")):
        try:
            compile_model(path, "tensor", fuse=False)
        except ModelError as err:
            found[path.stem] = str(err)
    return found


def models() -> list[Path]:
    shared = ROOT.parent / "shared" / "models"
    fixtures = [p for p in sorted((ROOT / "models").glob("*.tflite")) if p.stem not in refused()]
    return fixtures + (sorted(shared.glob("*.tflite")) if shared.is_dir() else [])


def tinyengine_style_bytes(path: Path) -> int:
    """Pool bytes of a TinyEngine-style plan of the model: whole tensors, depthwise in place."""
    layers = compile_model(path, "vmcu", fuse=False)
    return plan_vmcu(layers.graph, layers.steps, in_place_only=True).pool_bytes


def tinyengine_sentence() -> str:
    """What the TinyEngine-style plan needs for the full MCUNets, next to TinyEngine's own builds."""
    full = {p.stem: p for p in models()}
    if not {"mcunet-320kb-1mb_imagenet", "mcunet-vww1"} <= set(full):
        return "(the full MCUNet models are absent here)."
    imagenet, vww = (tinyengine_style_bytes(full[m]) for m in ("mcunet-320kb-1mb_imagenet", "mcunet-vww1"))
    return (f"on the full models it needs {imagenet:,} bytes for MCUNet-320KB-ImageNet and {vww:,} for MCUNet-VWW; "
            f"TinyEngine's own builds of them measured {TINYENGINE_RAM['mcunet-320kb-1mb_imagenet']:,} and "
            f"{TINYENGINE_RAM['mcunet-vww1']:,} bytes of RAM in all, activations, code data and stack, on the "
            "same board).")


def pointwise_model(hw: int, c: int, k: int) -> bytes:
    rng = np.random.default_rng(hw * 1000 + c * 10 + k)
    b = ModelBuilder()
    x = b.tensor((1, hw, hw, c), scale=0.05, zero_point=-5)
    w = b.const(random_weights(rng, (k, 1, 1, c)), scale=[0.01] * k, zero_point=0, axis=0)
    bias = b.const(random_bias(rng, k), scale=[0.0005] * k, zero_point=0)
    y = b.tensor((1, hw, hw, k), scale=0.05 * np.sqrt(c), zero_point=3)
    b.op("CONV_2D", [x, w, bias], [y], padding=1, stride_h=1, stride_w=1)
    b.inputs, b.outputs = [x], [y]
    return b.build()


def fc_model(rows: int, k: int, n: int) -> bytes:
    rng = np.random.default_rng(rows * 100000 + k * 100 + n)
    b = ModelBuilder()
    x = b.tensor((rows, k), scale=0.05, zero_point=2)
    w = b.const(random_weights(rng, (n, k)), scale=0.01, zero_point=0)
    bias = b.const(random_bias(rng, n), scale=0.0005, zero_point=0)
    y = b.tensor((rows, n), scale=0.05 * np.sqrt(k), zero_point=-3)
    b.op("FULLY_CONNECTED", [x, w, bias], [y])
    b.inputs, b.outputs = [x], [y]
    return b.build()


def bit_exact(model: bytes, program) -> bool:
    inputs = random_inputs(program.graph, seed=1)
    ours = Interpreter(program).run(inputs).outputs
    theirs, _ = run_tflm(model, inputs, len(ours))
    return all(np.array_equal(a, b) for a, b in zip(ours, theirs))


def model_rows() -> list[str]:
    rows = ["| model | TFLM head | TFLM total | whole-tensor plan | vMCU, no fusion | vMCU | vMCU / TFLM head "
            "| vMCU / whole-tensor | MACs | planning s |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for path in models():
        started = time.perf_counter()
        vmcu = compile_model(path, "vmcu")
        planning = time.perf_counter() - started
        unfused = compile_model(path, "vmcu", fuse=False).plan
        pool, tensor = vmcu.plan.pool_bytes, unfused.tensor_level_bytes
        assert vmcu.plan.macs == unfused.macs, path
        try:
            arena = tflm_arena_bytes(path.read_bytes(), random_inputs(vmcu.graph, seed=0))
            head, total, ratio = f"{arena['head']:,}", f"{arena['total']:,}", f"{pool / arena['head']:.1%}"
        except OracleError:  # an operator TFLite Micro lacks (TILE): LiteRT checks the model instead
            head, total, ratio = "no TFLM kernel", "-", "-"
        rows.append(f"| {path.stem} | {head} | {total} | {tensor:,} | {unfused.pool_bytes:,} | "
                    f"{pool:,} | {ratio} | {pool / tensor:.1%} | {vmcu.plan.macs:,} | {planning:.2f} |")
        print(rows[-1], flush=True)
    return rows


def _layer_name(layer) -> str:
    """conv3x3/2, dw5x5, or the NCHW -> NHWC transpose that starts a chain."""
    if is_transpose(layer):
        return "NCHW->NHWC"
    kind = "dw" if is_depthwise(layer) else "conv"
    return kind + "x".join(map(str, layer.filter.shape[1:3])) + (f"/{layer.stride[0]}" if layer.stride[0] > 1 else "")


def chain_rows() -> list[str]:
    """Every chain the planner fused, per model: its layers, its rings and the bytes it saved."""
    rows = ["| model | TFLite ops | layers | rings B | layers' largest step B | chain step B | saved B |",
            "|---|---|---|---:|---:|---:|---:|"]
    for path in models():
        program = compile_model(path, "vmcu")
        for step, planned in zip(program.steps, program.plan.steps):
            if step.kernel != "LAYER_CHAIN":
                continue
            choice = next(f for f in program.plan.fusion if f.label == "chain" and f.ops == step.ops)
            p = step.params
            layers = [_layer_name(layer) for layer in p.layers]
            layers += ["global average"] if p.pool is not None else []
            layers += ["+ input"] if p.add is not None else []
            rows.append(f"| {path.stem} | {step.ops[0]}-{step.ops[-1]} | {', '.join(layers)} | {planned.workspace_bytes:,} | "
                        f"{choice.unfused_bytes:,} | {choice.fused_bytes:,} | {choice.unfused_bytes - choice.fused_bytes:,} |")
            print(rows[-1], flush=True)
    return rows


def recompute_rows() -> list[str]:
    """Every model whose pool --allow-recompute lowers: bytes saved against MACs added."""
    rows = ["| model | vMCU | with --allow-recompute | saved | MACs | recomputed MACs | chains recomputing |",
            "|---|---:|---:|---:|---:|---:|---:|"]
    for path in models():
        default, allowed = compile_model(path, "vmcu").plan, compile_model(path, "vmcu", recompute=True).plan
        if allowed.pool_bytes >= default.pool_bytes:
            continue
        chosen = [f for f in allowed.fusion if f.fused and f.recompute]
        extra = sum(f.recomputed_macs for f in chosen)
        rows.append(f"| {path.stem} | {default.pool_bytes:,} | {allowed.pool_bytes:,} | "
                    f"{1 - allowed.pool_bytes / default.pool_bytes:.1%} | {allowed.macs:,} | {extra:,} | {len(chosen)} |")
        print(rows[-1], flush=True)
    return rows


def layer_rows(title: str, cases, build, describe) -> list[str]:
    rows = [f"| {title} | input B | output B | whole-tensor plan | vMCU plan | reduction | gap B | bit-exact |",
            "|---|---:|---:|---:|---:|---:|---:|---|"]
    for case in cases:
        model = build(*case)
        vmcu, tensor = compile_model(model, "vmcu"), compile_model(model, "tensor").plan
        step, graph = vmcu.steps[0], vmcu.graph
        x, y = graph.tensors[step.inputs[0]].num_bytes, graph.tensors[step.outputs[0]].num_bytes
        planned = vmcu.plan.steps[0]
        pool = vmcu.plan.pool_bytes
        rows.append(f"| {describe(*case)} | {x:,} | {y:,} | {tensor.pool_bytes:,} | {pool:,} | "
                    f"{1 - pool / tensor.pool_bytes:.1%} | {planned.gap_segments * planned.segment_bytes:,} | "
                    f"{'yes' if bit_exact(model, vmcu) else 'NO'} |")
        print(rows[-1], flush=True)
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "BENCHMARKS.md")
    args = parser.parse_args(argv)
    text = [
        "# Benchmarks",
        "",
        "Produced by `python benchmarks/memory.py`; every number below is measured by that script. Bytes of",
        "activation RAM. TFLite Micro figures come from its own interpreter (`tflite-micro`, `print_allocations`):",
        "head = activations (a float input is counted there), total = with its persistent data. The whole-tensor",
        "plan is ours with no overlap inside a step (TFLite Micro's greedy strategy over the same steps);",
        "the vMCU plan overlaps each step's output with the input segments it has consumed and fuses",
        "inverted bottlenecks and chains of convolution layers where that saves bytes (same",
        "multiply-accumulates); 'no fusion' is --no-fuse.",
        "",
        "## Models",
        "",
        *model_rows(),
        "",
        *(line for name, why in refused().items() for line in (f"Not converted yet: {name} ({why}).", "")),
        "## Fused chains",
        "",
        "Consecutive convolution layers (each read only by the next) that the planner runs as one step: each",
        "layer's output rows live in a ring as tall as the next layer's window (1x1 layers need none: they are",
        "applied to each pixel as it is made), and a global average pool at the end is a sum per channel.",
        "Layers: `conv` / `dw` with their window and `/stride`. Rings: the step's workspace.",
        "",
        *chain_rows(),
        "",
        "## Recomputation (--allow-recompute)",
        "",
        "Off by default. A chain whose second layer is a depthwise one may compute its first layer's pixels again",
        "for each depthwise window instead of keeping their rows in a ring (paper section 5.2): the models whose",
        "pool that lowers, and the multiply-accumulates it adds to the model's.",
        "",
        *recompute_rows(),
        "",
        "## Single layers (the paper's section 6.2 study)",
        "",
        "Pointwise convolutions `H/W, C -> K` (stride 1), then fully connected layers `rows x K -> N`. The gap is",
        "what the layer needs beyond the larger of its input and output (paper eq. 1).",
        "",
        *layer_rows("pointwise conv", POINTWISE, pointwise_model, lambda hw, c, k: f"H/W {hw}, C {c}, K {k}"),
        "",
        *layer_rows("fully connected", FULLY_CONNECTED, fc_model, lambda m, k, n: f"{m} x {k} -> {n}"),
        "",
        "## Inverted bottlenecks (the paper's multi-layer study)",
        "",
        "Each block of the paper's configuration table as a one-block model: lead conv (1x1 expand; B1: the 3x3",
        "stride-2 stem), depthwise RxR, 1x1 project, residual ADD when strides are 1 and channels match; strides",
        "are (lead, depthwise, project). Pool bytes of: our fused plan (ring of rows, the same MACs as the layers),",
        "our unfused vMCU plan, the whole-tensor plan, and a TinyEngine-style plan (whole tensors, depthwise in",
        f"place one channel at a time: {tinyengine_sentence()}",
        "",
        "### MCUNet-5fps-VWW",
        "",
        *memory_rows(VWW),
        "",
        "### MCUNet-320KB-ImageNet",
        "",
        *memory_rows(IMAGENET),
        "",
        "### Latency, fused against unfused",
        "",
        "Instructions of one run of each block's C on `qemu-cortex-m4` (mps2-an386), counted with SysTick under",
        "QEMU `-icount shift=0`: an instruction count, not cycles. Both variants are checked bit-exact against",
        "the reference interpreter; they do the same multiply-accumulates.",
        "",
        *latency_rows(VWW + IMAGENET),
        "",
        "### How much larger the VWW blocks can be in TinyEngine's RAM",
        "",
        "For each block: the largest input size (H/W, other dimensions kept), then separately the largest",
        "multiple of all channel counts (steps of 0.25), whose fused vMCU plan still fits in the RAM the",
        "TinyEngine-style plan needs for the original block.",
        "",
        *exploration(VWW, ROOT / "benchmarks" / "exploration.png"),
        "",
        "![growth in the same RAM](benchmarks/exploration.png)",
        "",
    ]
    kept = []  # every other script's section (latency.py, mbed.py, cores.py, ...) stays as it was
    for name in section_names(args.out):
        kept += [*section(args.out, name), ""]
    args.out.write_text("\n".join(text + kept))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
