"""What a conversion shapes its heavy kernels for: the registers and vector width of the core family.

The kernel descriptions are the same programs on every core, but some of their shapes are worth
choosing per core, and each is a fact of the description (the planner, the interpreter and the C
all see it):

- `dsp` (Cortex-M4, M7, M33: the default): depthwise channels four at a time (one word of
  SMLABB/SMLATT operands), and a fused chain's 1x1 layers two output channels per weight pass (the
  2x2 tile: four accumulators leave the Cortex-M4 registers for the rest); the 1x1 layers that gain
  the most per byte keep an int16 copy of their filter (`widened_weights.py`: SMLAD takes its words
  as they are).
- `scalar` (Cortex-M0, M3, RISC-V: no DSP extension): the `dsp` shapes without the int16 copies,
  whose gain is SMLAD's (a scalar multiply takes an int8 weight as fast as an int16 one).
- `helium` (Cortex-M55, M85): depthwise channels eight at a time (one VLDRB.S16 per tap, the
  products widened by VMULLB/VMULLT; where pixels go in pairs, one load per input column for both),
  and four output channels per weight pass in fused 1x1 layers and gathered stems too (each pixel's
  four channels requantized as one vector).

The same C builds and runs bit-exact on every core whatever the tuning; only the speed differs.
A layer records its tuning in its params (`tuning`), set once after the steps are built.
"""
from __future__ import annotations

from dataclasses import replace

TUNINGS = ("dsp", "helium", "scalar")
HELIUM_CPUS = ("cortex-m55", "cortex-m85")
SCALAR_CPUS = ("cortex-m0", "cortex-m0plus", "cortex-m3", "riscv32")  # no DSP extension


def tuning_for_cpu(cpu: str | None) -> str:
    """The tuning of a core (-mcpu name, or "riscv32"); None: the default."""
    return "helium" if cpu in HELIUM_CPUS else "scalar" if cpu in SCALAR_CPUS else "dsp"


def depthwise_lanes(p, channels: int | None = None) -> int:
    """Channels per depthwise group of a layer with depth multiplier 1; four where the groups run over
    fewer than eight `channels` at a time (an in-place plane, an output segment): half-empty eight-lane
    groups cost more than full four-lane ones."""
    helium = getattr(p, "tuning", "dsp") == "helium" and (channels is None or channels >= 8)
    return 8 if helium else 4


def lane_ordered(p) -> bool:
    """Whether the layer's filter is stored lane-ordered in int16 (kernels/ir.py, widened_weights.py)."""
    return getattr(p, "int16_weights", False)


def tile_channels(p) -> int:
    """Output channels per weight pass of a convolution `p` that reads whole windows: a fused chain's
    1x1 layers and gathered stems (GEMM steps take four on every core, `gemm.group_width`)."""
    return 4 if getattr(p, "tuning", "dsp") == "helium" and p.output_shape[3] >= 4 else 2


def tuned(steps: tuple, tuning: str) -> tuple:
    """`steps` with every convolution and depthwise layer's params set to `tuning`."""
    if tuning not in TUNINGS:
        raise ValueError(f"unknown kernel tuning {tuning!r} (one of {', '.join(TUNINGS)})")
    return tuple(replace(s, params=replace(s.params, tuning=tuning)) if hasattr(s.params, "tuning") else s
                 for s in steps)
