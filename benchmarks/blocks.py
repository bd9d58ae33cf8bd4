"""The paper's multi-layer study: inverted bottlenecks S1-S8 (MCUNet-5fps-VWW) and B1-B17
(MCUNet-320KB-ImageNet), each built as a one-block int8 model with random weights.

Used by benchmarks/memory.py; run alone it prints the tables:
    python benchmarks/blocks.py
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.tflite_builder import ModelBuilder, random_bias, random_weights  # noqa: E402
from vmcu_tflite.pipeline import compile_model  # noqa: E402
from vmcu_tflite.planner.vmcu import plan_vmcu  # noqa: E402


@dataclass(frozen=True)
class BlockConfig:
    """A row of the paper's configuration table: strides of (lead conv, depthwise, project)."""

    name: str
    hw: int
    c_in: int
    c_mid: int
    c_out: int
    kernel: int
    strides: tuple[int, int, int]

    @property
    def stem(self) -> bool:
        """B1 is MCUNet's 3x3 stride-2 stem convolution followed by the first block."""
        return self.strides[0] == 2

    @property
    def residual(self) -> bool:
        return self.strides == (1, 1, 1) and self.c_in == self.c_out

    def scaled(self, hw: int | None = None, channels: float = 1.0) -> "BlockConfig":
        def scale(c: int) -> int:
            return max(1, round(c * channels))
        return BlockConfig(self.name, hw or self.hw, self.c_in if self.stem else scale(self.c_in), scale(self.c_mid),
                           scale(self.c_out), self.kernel, self.strides)


VWW = [BlockConfig(*row) for row in [
    ("S1", 20, 16, 48, 16, 3, (1, 1, 1)), ("S2", 20, 16, 48, 16, 3, (1, 1, 1)), ("S3", 10, 24, 144, 16, 3, (1, 1, 1)),
    ("S4", 10, 24, 120, 24, 3, (1, 1, 1)), ("S5", 5, 40, 240, 40, 3, (1, 1, 1)), ("S6", 5, 48, 192, 48, 3, (1, 1, 1)),
    ("S7", 3, 96, 480, 96, 3, (1, 1, 1)), ("S8", 3, 96, 384, 96, 3, (1, 1, 1))]]
IMAGENET = [BlockConfig(*row) for row in [
    ("B1", 176, 3, 16, 8, 3, (2, 1, 1)), ("B2", 88, 8, 24, 16, 7, (1, 2, 1)), ("B3", 44, 16, 80, 16, 3, (1, 1, 1)),
    ("B4", 44, 16, 80, 16, 7, (1, 1, 1)), ("B5", 44, 16, 64, 24, 5, (1, 1, 1)), ("B6", 44, 16, 80, 24, 5, (1, 2, 1)),
    ("B7", 22, 24, 120, 24, 5, (1, 1, 1)), ("B8", 22, 24, 120, 24, 5, (1, 1, 1)), ("B9", 22, 24, 120, 40, 3, (1, 2, 1)),
    ("B10", 11, 40, 240, 40, 7, (1, 1, 1)), ("B11", 11, 40, 160, 40, 5, (1, 1, 1)),
    ("B12", 11, 40, 200, 48, 7, (1, 2, 1)), ("B13", 11, 48, 240, 48, 7, (1, 1, 1)),
    ("B14", 11, 48, 240, 48, 3, (1, 1, 1)), ("B15", 11, 48, 288, 96, 3, (1, 2, 1)),
    ("B16", 6, 96, 480, 96, 7, (1, 1, 1)), ("B17", 6, 96, 384, 96, 3, (1, 1, 1))]]


def build_block(config: BlockConfig, seed: int = 0) -> bytes:
    """lead conv (1x1 expand, or the 3x3 stem) -> depthwise -> 1x1 project [-> ADD], ReLU6 as MCUNet."""
    rng = np.random.default_rng(seed)
    b = ModelBuilder()
    scale = 0.05
    x = b.tensor((1, config.hw, config.hw, config.c_in), scale=scale, zero_point=-5)
    shape, y = (1, config.hw, config.hw, config.c_in), x

    def conv(inp, shape, c_out, k, stride, depthwise, act):
        nonlocal scale
        h = -(-shape[1] // stride)
        w_scale = rng.uniform(0.005, 0.02, size=c_out)
        out_scale = float(math.sqrt(k * k * (1 if depthwise else shape[3])) * 128 * scale * w_scale.mean())
        f = b.const(random_weights(rng, (1, k, k, c_out) if depthwise else (c_out, k, k, shape[3])),
                    scale=w_scale, zero_point=0, axis=3 if depthwise else 0)
        bias = b.const(random_bias(rng, c_out), scale=scale * w_scale, zero_point=0)
        out = b.tensor((1, h, h, c_out), scale=out_scale, zero_point=-128 if act == 3 else 4)
        extra = {"depth_multiplier": 1} if depthwise else {}
        b.op("DEPTHWISE_CONV_2D" if depthwise else "CONV_2D", [inp, f, bias], [out], padding=0, stride_h=stride,
             stride_w=stride, fused_activation_function=act, **extra)
        scale = out_scale
        return out, (1, h, h, c_out)

    y, shape = conv(y, shape, config.c_mid, 3 if config.stem else 1, config.strides[0], False, 3)
    y, shape = conv(y, shape, config.c_mid, config.kernel, config.strides[1], True, 3)
    y, shape = conv(y, shape, config.c_out, 1, config.strides[2], False, 0)
    if config.residual:
        out = b.tensor(shape, scale=scale * 1.5, zero_point=2)
        b.op("ADD", [x, y], [out])
        y = out
    b.inputs, b.outputs = [x], [y]
    return b.build()


@dataclass(frozen=True)
class BlockMemory:
    fused: int
    unfused: int
    whole_tensor: int
    in_place_depthwise: int  # TinyEngine-style: whole tensors, depthwise in place
    macs_fused: int
    macs_unfused: int


def block_memory(config: BlockConfig) -> BlockMemory:
    model = build_block(config)
    fused, unfused = compile_model(model, "vmcu"), compile_model(model, "vmcu", fuse=False)
    return BlockMemory(fused.plan.pool_bytes, unfused.plan.pool_bytes, unfused.plan.tensor_level_bytes,
                       plan_vmcu(unfused.graph, unfused.steps, in_place_only=True).pool_bytes,
                       fused.plan.macs, unfused.plan.macs)


def fits(config: BlockConfig, budget: int) -> bool:
    return compile_model(build_block(config), "vmcu").plan.pool_bytes <= budget


def largest_image(config: BlockConfig, budget: int) -> int:
    """The largest input height/width whose fused plan still fits in `budget` bytes."""
    hw = config.hw
    while fits(config.scaled(hw=hw + 1), budget):
        hw += 1
    return hw


def largest_channel_factor(config: BlockConfig, budget: int, step: float = 0.25) -> float:
    """The largest multiple (in steps of `step`) of the block's channels that still fits."""
    factor = 1.0
    while fits(config.scaled(channels=factor + step), budget):
        factor += step
    return factor


def instructions(config: BlockConfig, fuse: bool) -> int | None:
    """Instructions one run of the block takes on qemu-cortex-m4 (QEMU -icount), or None without QEMU."""
    import tempfile

    from vmcu_tflite.errors import UsageError
    from vmcu_tflite.validate.run import validate
    from vmcu_tflite.validate.targets import TARGETS

    with tempfile.TemporaryDirectory() as work:
        model = Path(work) / f"{config.name}.tflite"
        model.write_bytes(build_block(config))
        try:
            result = validate(model, TARGETS["qemu-cortex-m4"], fuse=fuse, compare_tflm=False)
        except UsageError:
            return None
    if not result.matches_reference:
        raise AssertionError(f"{config.name}: the C output differs from the reference")
    return result.measurements["instructions"]


def latency_rows(configs) -> list[str]:
    rows = ["| block | instructions, fused | instructions, unfused | fused / unfused |", "|---|---:|---:|---:|"]
    for c in configs:
        fused, unfused = instructions(c, True), instructions(c, False)
        if fused is None or unfused is None:
            return ["(not measured: qemu-system-arm and gcc-arm-none-eabi are needed)"]
        rows.append(f"| {c.name} | {fused:,} | {unfused:,} | {fused / unfused:.2f} |")
        print(rows[-1], flush=True)
    return rows


def memory_rows(configs) -> list[str]:
    rows = ["| block | H/W | C in/mid/out | R | strides | vMCU fused | vMCU unfused | whole-tensor | "
            "in-place depthwise (TinyEngine-style) | fused vs TinyEngine-style | MACs fused = unfused |",
            "|---|---:|---|---:|---|---:|---:|---:|---:|---:|---|"]
    for c in configs:
        m = block_memory(c)
        rows.append(f"| {c.name} | {c.hw} | {c.c_in}/{c.c_mid}/{c.c_out} | {c.kernel} | "
                    f"{','.join(map(str, c.strides))} | {m.fused:,} | {m.unfused:,} | {m.whole_tensor:,} | "
                    f"{m.in_place_depthwise:,} | {m.fused / m.in_place_depthwise - 1:+.1%} | "
                    f"{'yes' if m.macs_fused == m.macs_unfused else 'NO'} |")
        print(rows[-1], flush=True)
    return rows


def exploration(configs, png: Path) -> list[str]:
    """How much larger a VWW block may grow, in image size or channels, in the TinyEngine-style RAM."""
    rows = ["| block | TinyEngine-style RAM | image size: original -> largest | channels: largest multiple |",
            "|---|---:|---|---:|"]
    sizes, channels = [], []
    for c in configs:
        budget = block_memory(c).in_place_depthwise
        hw, mult = largest_image(c, budget), largest_channel_factor(c, budget)
        sizes.append(hw / c.hw)
        channels.append(mult)
        rows.append(f"| {c.name} | {budget:,} | {c.hw} -> {hw} ({hw / c.hw:.2f}x) | {mult:.2f}x |")
        print(rows[-1], flush=True)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4))
    x = np.arange(len(configs))
    ax.bar(x - 0.2, sizes, 0.4, label="image size (H/W) factor")
    ax.bar(x + 0.2, channels, 0.4, label="channel count factor")
    ax.axhline(1, color="grey", linewidth=0.8)
    ax.set_xticks(x, [c.name for c in configs])
    ax.set_ylabel("largest factor in the same RAM")
    ax.set_title("MCUNet-5fps-VWW blocks: growth that fits the TinyEngine-style RAM with vMCU fusion")
    ax.legend()
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)
    return rows


if __name__ == "__main__":
    memory_rows(VWW + IMAGENET)
