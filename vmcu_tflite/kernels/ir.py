"""The kernel language: loops and the paper's intrinsics (section 5), as plain frozen dataclasses.

A kernel description is a tree of statements. Loops run a variable over [lo, hi) in steps; the
pool is touched only through RAMLoad, RAMStore and RAMFree, whose offsets are index expressions
(`index.py`) of the loop variables, so the planner, the interpreter and the C generator all see
exactly the bytes the kernel reads and writes, in the kernel's order:

- `RAMLoad`: `runs` runs of `length` bytes, `run_stride` apart, from a tensor of the pool. In C,
  a pointer into the pool, or (when the bytes cross the end of the circular pool) a copy;
  with `into`, always a copy into a RegAlloc buffer (a gathered window).
- `RAMStore`: bytes of a RegAlloc buffer to a tensor of the pool. `PullRow`: a store of one row
  of a streamed model input, which the application writes (streamed_io.py); `PushRow`: a load of
  one row of a streamed model output, which the application takes.
- `RAMFree`: the kernel will never read these bytes again; its output may now land on them.
  C emits nothing; the interpreter releases them and so proves the claim.
- `FlashLoad`: a pointer into a constant array of the params (weights live in flash); or a few
  weights copied into a RegAlloc buffer (one channel's taps, held in registers across a plane).
- `RegAlloc`: registers / a small local array. `Broadcast`: a 16-bit value in both halves of a
  word (PKHBT), the input offset of the SIMD dot products.
- `Dot`: acc[G p + k] += sum_i (x_p[i] + offset) * w_k[i] for one or two inputs x_p by the first
  `count` of its G weight rows w_k (G = 2 or 4; SMLAD pairs; two by two is the paper's 2x2x16 GEMM
  tile: each widened word serves two products); `DotLanes`: acc[l] += (x[l] + offset) *
  w[l] for up to four lanes, the per-channel products of depthwise convolution (SMLABB/SMLATT,
  four channels per word); `DotLanesPair`: a kernel row's taps for two adjacent pixels at once
  (each input and weight word serves both); `DotRow`: one channel's kernel row over a row of a
  one-channel plane, four taps per word (or two adjacent pixels' rows, each word serving both; or
  two channels' rows over a two-channel plane, a word two columns of both). DotLanes, DotLanesPair
  and FlashLoad may read a *lane-ordered* depthwise filter (`lane_order`, kernels/widened_weights.py):
  the int8 filter widened to int16, each group of four channels' taps in the order of the halfwords
  SXTB16 makes of a word and of its rotation (channels 0, 2, 1, 3), so that the DSP path loads a
  tap's half group as one word ready for SMLABB/SMLATT: the int8 filter's element j is its element
  j with bits 0 and 1 of the index swapped.
  `Widen`: a small input every output channel reads (a stem's window), widened to 16 bits once
  with its offset; a Dot over the widened buffer needs no SXTAB16.
- `Requantize`, `InitBias`, `AddResidual`: TFLite's integer arithmetic on a few values
  (`Requantize.form`: the cheaper forms a layer's constants allow, `requant.py`); `Accumulate`
  and `Average`: a global average pool's sums and their rounded means.

Element types. Activations are int8 or int16 (a 16x8 model). A RAMLoad says the C type of what it
loads (`ctype`); a RegAlloc the type of its elements (a RAMStore copies its buffer's elements). Pool
offsets, lengths and run strides stay in bytes, the planner's unit: access functions, segments, frees
and the hazard checks are the same for both widths, and a description of int16 data is the int8 one
with its pool offsets times two. Indexes into a loaded pointer or a buffer (Dot's x_index, a
RAMStore's src_index, a gather's into_index) count elements, as C pointer arithmetic does: the C of
an int16 load is an `const int16_t *` into the pool. A load or store of int16 data moves whole
elements (its offsets and lengths even; the planner aligns int16 tensors to 2 bytes in an even
pool, so a 2-byte element is never split by the end of the pool). int16 data is accumulated in
int64 where the layer's bias is (`RegAlloc("acc", "int64_t", ...)`, `Requantize.form.wide`).

Tensors are named by role: "input0", "input1", ... and "output" in the pool, plus workspaces
declared by the kernel (`Workspace`): a logical tensor kept in `capacity` bytes of the step's
workspace from byte `at` on, byte b at workspace offset at + b mod capacity (a ring of rows, a
line buffer, a channel plane).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from .index import Const, Ix, IxLike, ix
from .requant import GENERAL, RequantForm


class _IndexFields:
    """Lets descriptions write plain ints wherever an index expression is expected."""

    def __post_init__(self):
        for name, kind in self.__dataclass_fields__.items():
            if kind.type == "Ix" and not isinstance(getattr(self, name), Ix):
                object.__setattr__(self, name, ix(getattr(self, name)))


@dataclass(frozen=True)
class Loop:
    """`var` over [lo, hi) by `step`. `interior`, a hint for the C only: the values [a, b) for which
    the body's clamps do not bite (a window inside the input). The C runs [lo, a), [a, b) and
    [b, hi) as three loops, in the same order, the middle one with its clamps folded away (with a
    step above 1, the middle one takes the iterations whose tile [v, v + step) lies in [a, b))."""

    var: str
    lo: Ix
    hi: Ix  # exclusive
    body: tuple["Stmt", ...]
    step: int = 1
    interior: tuple[int, int] | None = None


@dataclass(frozen=True)
class RAMLoad(_IndexFields):
    name: str  # the loaded bytes, as a pointer (or, with `into`, the buffer written)
    tensor: str
    offset: Ix
    length: Ix
    runs: Ix = Const(1)
    run_stride: Ix = Const(0)
    max_bytes: int = 0  # static bound of runs * length (the copy made when the bytes wrap)
    into: str | None = None  # gather into this RegAlloc buffer at `into_index`, runs packed
    into_index: Ix = Const(0)
    ctype: str = "int8_t"  # the elements loaded: int16_t for a 16x8 layer's activations


@dataclass(frozen=True)
class RAMStore(_IndexFields):
    tensor: str
    offset: Ix
    length: Ix
    src: str  # a RegAlloc buffer
    src_index: Ix = Const(0)


@dataclass(frozen=True)
class PullRow(RAMStore):
    """Row `row` of the model's streamed input `input`, pulled from the application straight into
    a tensor of the pool (a chain's input ring): a store whose bytes come from outside the kernel.
    The C calls the application's read_row callback with the row's pool address (`vmcu_pull_row`);
    the interpreter serves the row through the same protocol and checks the order."""

    row: Ix = Const(0)
    input: int = 0


@dataclass(frozen=True)
class PushRow(RAMLoad):
    """Row `row` of the model's streamed output `output`, handed to the application from where the
    kernel just finished it (a chain's output ring): a load whose bytes leave the kernel. The C
    calls the application's write_row callback with the row's pool address (`vmcu_push_row`); the
    interpreter takes the row through the same protocol and checks the order. `name` is unused."""

    row: Ix = Const(0)
    output: int = 0


@dataclass(frozen=True)
class RAMFree(_IndexFields):
    tensor: str
    offset: Ix
    length: Ix
    runs: Ix = Const(1)
    run_stride: Ix = Const(0)


@dataclass(frozen=True)
class RegAlloc:
    name: str
    ctype: str  # "int8_t", "int16_t" (a Widen's, or int16 outputs), "int32_t" or "int64_t" (16x8 accumulators)
    size: int
    fill: str | None = None  # C value every element starts with (a window's zero point)


@dataclass(frozen=True)
class FlashLoad(_IndexFields):
    name: str  # the pointer, or with `into` the RegAlloc buffer filled
    array: str  # C expression of a params member: "p->filter"
    offset: Ix
    into: bool = False  # copy `count` values `stride` apart into the int32 buffer `name` (taps in registers)
    count: int = 0
    stride: int = 0
    ctype: str = "int8_t"  # the array's elements: int16_t for a filter widened at conversion (`conv.wide_filter`)
    lanes: int = 1  # with `into`: lane l's count values from offset + l on, at name[l * count] (two channels' taps)
    row: int = 0  # with `into` and two lanes: taps per kernel row, which the C lays out for DotRow's column pairs
    lane_order: bool = False  # with `into`: the array is a lane-ordered depthwise filter (see the module)


@dataclass(frozen=True)
class Broadcast:
    name: str
    value: str  # C expression of a 16-bit value


@dataclass(frozen=True)
class Dot(_IndexFields):
    acc: str
    acc_index: Ix
    x: str
    x_index: Ix
    weights: tuple[str, ...]  # G FlashLoad pointers (G = 2 or 4): acc[G * p + k] for input p, row k
    w_index: Ix
    length: Ix
    offsets: str  # Broadcast of the input offset
    x_offset: str  # the same offset as a plain int32 (portable path)
    count: Ix = Const(1)  # weight rows used, 1 to G (the last group of a segment may use fewer)
    pixels: Ix = Const(1)  # inputs used: 1, 2 or 3 (widened ones: a 3x2 tile), input p x_stride * p after the first
    x_stride: Ix = Const(0)
    # rows 2j and 2j + 1 interleaved word by word (`paired_weights.py`): row k's weight i at
    # w_k[w_index + 8 * (i // 4) + i % 4], row 2j + 1 starting 4 bytes after row 2j
    paired: bool = False


@dataclass(frozen=True)
class Widen(_IndexFields):
    """dst[dst_index + i] = src[i] + offset for i < length: inputs every output channel reads, widened
    once. In C an int16 buffer in SMLAD order (groups of four as x0, x2, x1, x3: vmcu_widen_s8, for
    int8 weights that SXTB16 splits the same way), or with `natural` in order (for int16 weights)."""

    dst: str
    dst_index: Ix
    src: str
    src_index: Ix
    length: Ix
    offsets: str
    x_offset: str
    natural: bool = False


@dataclass(frozen=True)
class DotLanes(_IndexFields):
    acc: str
    x: str
    x_index: Ix
    w: str  # C expression of the filter array, or a RegAlloc buffer a FlashLoad filled (one lane)
    w_index: Ix
    lanes: Ix
    offsets: str
    x_offset: str
    lane_order: bool = False  # w is a lane-ordered depthwise filter (see the module)


@dataclass(frozen=True)
class DotLanesPair(_IndexFields):
    """Two horizontally adjacent output pixels of a depthwise group over `taps` taps of a kernel row,
    their windows `shift` columns apart (the stride): for t < taps and the lanes l < lanes of one half
    of the group (l = half or half + 2: the halfwords SXTAB16 makes of a word, or of its rotation; half
    None: both halves, one after the other), acc[l] += (x[x_index + t * x_stride + l] + offset) *
    w[w_index + t * w_stride + l] and acc1[l] += (x[x_index + (t + shift) * x_stride + l] + offset) *
    w[w_index + t * w_stride + l]. Pixel 1's tap t reads pixel 0's column t + shift: each input word
    serves both pixels and each widened weight word both, which a tap at a time (DotLanes) cannot
    share. With `acc2`, a third pixel to the right of both: acc2[l] += (x[x_index +
    (t + 2 shift) * x_stride + l] + offset) * w[w_index + t * w_stride + l], each word serving three."""

    acc: str
    acc1: str
    x: str
    x_index: Ix
    x_stride: Ix
    w: str  # C expression of the filter array
    w_index: Ix
    w_stride: Ix
    taps: Ix
    lanes: Ix
    half: int | None
    shift: int
    offsets: str
    x_offset: str
    lane_order: bool = False  # w is a lane-ordered depthwise filter (see the module)
    acc2: str | None = None  # a third pixel's accumulators


@dataclass(frozen=True)
class DotRow(_IndexFields):
    """acc[0] += sum_{i < length} (x[x_index + i] + offset) * w[w_index + i]: one channel's kernel
    row over contiguous inputs (a row of a one-channel plane), the taps w in a RegAlloc buffer a
    FlashLoad filled. Words of four inputs (SMLAD), not one tap at a time. With `acc1`, also the
    next output pixel's row, one input further: acc1[0] += sum_i (x[x_index + 1 + i] + offset) *
    w[w_index + i] (each input word serves both pixels).

    With `channels` 2, a row of a two-channel plane (pixel i's channel l at x[2 i + l]) for `pixels`
    adjacent output pixels (1, 2 or 4; no acc1), lane l's taps w_pitch further in w (a FlashLoad of two
    lanes): acc[2 p + l] += sum_i (x[x_index + 2 (p + i) + l] + offset) * w[w_index + l * w_pitch + i]
    for p < pixels. In C a word of the plane is two columns of both channels, so SXTAB16 and its
    rotation give each channel a column pair and one SMLAD two taps of a pixel (the taps laid out in
    pairs by the FlashLoad's `row`): a row of an odd length is read in whole words, the pixels'
    columns rounded up to even, which the plane holds (its rows padded)."""

    acc: str
    x: str
    x_index: Ix
    w: str
    w_index: Ix
    length: Ix
    offsets: str
    x_offset: str
    acc1: str | None = None
    channels: int = 1
    w_pitch: Ix = Const(0)
    pixels: int = 1


@dataclass(frozen=True)
class InitBias(_IndexFields):
    acc: str
    bias: str  # C expression of the bias array (never NULL: a model without one gets zeros)
    channel: Ix
    count: Ix
    acc_index: Ix = Const(0)
    width: int = 0  # accumulators set from acc_index on (those past count to 0); 0: the whole buffer
    ctype: str = "int32_t"  # the bias table's C type (requant.bias_ctype; int64_t for some 16x8 layers)


@dataclass(frozen=True)
class Requantize(_IndexFields):
    """dst[dst_index + p * dst_stride + k] = requantized acc[acc_index + p * acc_stride + k] for the
    `count` channels k from `channel` on and the `pixels` p of a tile: each channel's constants
    are read once for all its pixels. `acc1`: a second pixel's accumulators held in a buffer of
    their own (DotLanesPair's), requantized with the same constants into dst[dst_index + dst_stride
    + k] (pixels 1); `acc2` a third's, into dst[dst_index + 2 dst_stride + k]."""

    dst: str
    dst_index: Ix
    acc: str
    count: Ix
    channel: Ix
    quant: str  # C expression of a params struct with .requant and .output_offset
    form: RequantForm = GENERAL  # what the layer's constants prove (requant.py): the C's cheaper forms
    acc_index: Ix = Const(0)
    pixels: Ix = Const(1)
    dst_stride: Ix = Const(0)
    acc_stride: Ix = Const(0)
    acc1: str | None = None
    acc2: str | None = None


@dataclass(frozen=True)
class AddResidual(_IndexFields):
    dst: str
    dst_index: Ix
    residual: str  # a RAMLoad pointer
    residual_index: Ix
    count: Ix
    add: str  # C expression of a vmcu_binary_arith pointer (the ADD's offsets, scaling and clamp)
    residual_first: bool


@dataclass(frozen=True)
class Accumulate(_IndexFields):
    """acc[i] += src[src_index + i] for i < count: int8 values summed in int32 (the sums of a
    global average pool that ends a fused chain)."""

    acc: str
    src: str
    count: Ix
    src_index: Ix = Const(0)


@dataclass(frozen=True)
class Average(_IndexFields):
    """dst[i] = clamp(acc[i] / divisor) for i < count, rounded half away from zero, between act_min
    and act_max: TFLite's integer AveragePool over sums (input and output share quantization)."""

    dst: str
    acc: str
    count: Ix
    divisor: int
    act_min: int
    act_max: int


Stmt = Union[Loop, RAMLoad, RAMStore, PullRow, PushRow, RAMFree, RegAlloc, FlashLoad, Broadcast, Dot, DotLanes,
             DotLanesPair, DotRow, InitBias, Requantize, AddResidual, Widen, Accumulate, Average]
MEMORY = (RAMLoad, RAMStore, RAMFree)


@dataclass(frozen=True)
class Workspace:
    """A logical tensor the kernel keeps in its workspace: byte b at workspace offset b % capacity."""

    name: str
    size: int  # logical bytes
    capacity: int  # workspace bytes it occupies
    at: int = 0  # where it starts in the step's workspace (a fused chain keeps one ring per layer)
    # A ring whose rows do not divide its capacity (a line buffer) wraps at its own end, inside a
    # row: the plan keeps it in one piece of the pool and the C gives it a view of its own.
    wraps: bool = False


@dataclass(frozen=True)
class Kernel:
    """One kernel configuration: everything that the generated C folds in as constants.

    `signature` names the configuration (what the C folds in). The model's C file shares one
    function between steps whose descriptions lower to the same C (codegen/kernel_functions.py).
    `tensors` maps each pool role to its size in bytes.
    """

    name: str  # C function stem
    params_type: str  # the C params struct the function receives
    signature: tuple
    tensors: dict[str, int]
    body: tuple[Stmt, ...]
    workspaces: tuple[Workspace, ...] = ()
    doc: str = ""
    element: int = 1  # bytes per activation element: 2 for a 16x8 layer's int16 (its params checked so)

    def workspace(self, name: str) -> Workspace | None:
        return next((w for w in self.workspaces if w.name == name), None)


def loop(var: str, lo: IxLike, hi: IxLike, body, step: int = 1, interior: tuple[int, int] | None = None) -> Loop:
    return Loop(var, ix(lo), ix(hi), tuple(body), step, interior)
