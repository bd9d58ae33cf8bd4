"""A chain of convolution layers fused into one step: rings of rows instead of whole tensors.

A chain is consecutive CONV_2D and DEPTHWISE_CONV_2D layers, each read only by the next
(MobileNetV1's depthwise -> pointwise pairs, a DS-CNN's stem and blocks). Fused, no intermediate
tensor is ever whole in the pool: each layer's output rows live in a ring as tall as the next layer's window,
and a 1x1 layer needs no ring at all (it is applied to each pixel as it is made). The step holds
its input (consumed row by row), its output (written over consumed input) and the rings: about
max(input, output) + the rings, where the layers apart hold their largest input + output pair.

Where the chain's output is a streamed model output, it keeps one output row, which it hands to
the application as soon as the row is made: the output never exists whole either.

Where the chain's input is a streamed model input (`vmcu_tflite/streamed_io.py`), the chain pulls
its rows from the application into one more ring, as tall as its first layer's window, just before
the first row that needs them: the input never exists whole, and the step holds its output and
its rings only. Such a chain also keeps the ring its last stage reads as a line buffer: the last
row an output row's window needs is made a few pixels at a time just ahead of the windows, so
the ring holds the window's rows less one and about a window's width of pixels.

A TRANSPOSE from NCHW to NHWC may start the chain (a PyTorch export's input): its pixels are
gathered channel by channel from the planes the application wrote, so the input never exists
twice. A global average pool may end the chain: the last stage's pixels are then summed per
channel and only the means are stored. Or a residual ADD of the chain's own input may end it
(MobileNetV2's inverted bottleneck: 1x1 expand -> depthwise -> 1x1 project + input): each output
pixel is added to the input pixel at its place, read just before the output lands on it.

A chain holds layers of one element size: int8, or a 16x8 model's int16 activations (its rings
and register pixels then hold int16 values, twice the bytes; a global average pool sums them in
int32 as TFLite Micro's int16 AveragePool does). Recomputation and streamed rows are int8 only: a
16x8 chain keeps its rings and reads its input from the pool, writes its output there.

The layers are grouped into stages: a stage is one layer with a window (or the first layer) and
the 1x1 layers that follow it; stage i's output pixels go to ring i, the last stage's to the
step's output. The kernel (`vmcu_tflite/kernels/chain.py`) computes rows on demand, so every
multiply-accumulate of the layers is done exactly once.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

KIND = "LAYER_CHAIN"
MAX_STAGES = 6  # deeper, the rows-inside-rows schedule outgrows the 64-bit time the checks use
PIXELS = 2  # a stage's output pixels per iteration: a pointwise layer's 2x2 tile (two pixels by two channels)
PAIR_BYTES = 512  # stack for a pair's values: stages with wider layers take one pixel at a time
RECOMPUTE_PIXELS = 8  # a recomputing chain's second-stage output pixels per register window
RECOMPUTE_STACK = 1024  # at most this many bytes of stack for that window and the stage's pixels

Layer = Any  # Conv2DParams, DepthwiseConv2DParams or TransposeParams (not imported: the ops import the kernels)
NCHW_TO_NHWC = (0, 2, 3, 1)


def is_depthwise(layer: Layer) -> bool:
    return hasattr(layer, "depth_multiplier")


def is_transpose(layer: Layer) -> bool:
    """A TRANSPOSE from NCHW to NHWC (a PyTorch export's first op): only ever a chain's first layer,
    it reads its input where the application wrote it, in the model's own layout."""
    return getattr(layer, "perm", None) == NCHW_TO_NHWC


def is_pointwise(layer: Layer) -> bool:
    """A 1x1, stride 1, unpadded, single-group convolution: applied pixel by pixel, no ring (not one
    that reads through a folded upsample: its pixels are not its input's)."""
    return (not is_depthwise(layer) and getattr(layer, "upsample", (1, 1)) == (1, 1) and not is_transpose(layer)
            and layer.filter.shape[1:3] == (1, 1)
            and layer.stride == (1, 1) and layer.padding == (0, 0) and layer.filter.shape[3] == layer.input_shape[3])


def chainable(layer: Layer) -> bool:
    """What a chain can hold: batch 1, no dilation (a ring is as tall as the window), and a
    stride no larger than the window (rows skipped by the stride would still be computed); no folded
    upsample (a ring holds the rows of the layer's input as they are)."""
    k_h = layer.filter.shape[1]
    return (getattr(layer, "upsample", (1, 1)) == (1, 1) and layer.input_shape[0] == 1 and layer.dilation == (1, 1)
            and layer.stride[0] <= k_h)


@dataclass(frozen=True)
class Stage:
    """Layers [first, end) of the chain: a head (a window, or the chain's first layer) and the 1x1
    layers after it. `ring_rows`: rows of its output the next stage's window needs at once."""

    first: int
    end: int
    ring_rows: int


def is_global_average(pool) -> bool:
    """An AVERAGE_POOL_2D over the whole of its input (a classifier's head): fused at a chain's end,
    it is a sum per channel, so the last layer's output is never stored at all."""
    _, h, w, _ = pool.input_shape
    return pool.filter == (h, w) and pool.padding == (0, 0) and pool.output_shape[1:3] == (1, 1)


@dataclass(frozen=True, eq=False)
class LayerChainParams:
    layers: tuple[Layer, ...]
    pool: Any = None  # a global AVERAGE_POOL_2D's PoolParams after the last layer, or None
    add: Any = None  # an ADD of the chain's input to its last layer's output (a residual), or None
    residual_first: bool = False  # the chain's input is the ADD's first operand
    recompute: bool = False  # a stage's pixels are computed again for each window that reads them (`recomputed`)
    pulls_input: int | None = None  # the model input whose rows the chain pulls into its input ring (streamed_io.py)
    line_buffer: bool = False  # a chain that pulls keeps the ring its last stage reads as a line buffer
    pushes_output: int | None = None  # the model output whose rows the chain pushes from its output ring

    @property
    def input_shape(self) -> tuple[int, ...]:
        return self.layers[0].input_shape

    @property
    def element(self) -> int:
        """Bytes per activation, the same for every layer of the chain: 2 for 16x8 layers (their rings
        and register pixels hold int16 values), else 1."""
        return getattr(self.layers[-1], "element", 1)

    @property
    def output_shape(self) -> tuple[int, ...]:
        return (self.pool or self.layers[-1]).output_shape

    @cached_property
    def stages(self) -> tuple[Stage, ...]:
        """A recomputed run of 1x1 layers is a stage of its own, with no ring: the ring before it
        is as tall as the window after it (a 1x1 layer maps rows one to one)."""
        again = self._recomputed_layer() if self.recompute else None
        heads = [i for i, layer in enumerate(self.layers) if i == 0 or not is_pointwise(layer) or i == again]
        ends = heads[1:] + [len(self.layers)]
        readers = [ends[n] if h == again and n < len(heads) - 1 else h for n, h in enumerate(heads)]
        rows = [self.layers[readers[n]].filter.shape[1] for n in range(1, len(heads))] + [0]
        return tuple(Stage(a, b, r) for a, b, r in zip(heads, ends, rows))

    @cached_property
    def recomputed(self) -> int | None:
        """The stage whose pixels are made again for every window of the next stage that reads
        them (no ring), or None."""
        again = self._recomputed_layer() if self.recompute else None
        return None if again is None else next(i for i, s in enumerate(self.stages) if s.first == again)

    def _recomputed_layer(self) -> int | None:
        """The first layer of the stage a recomputing chain keeps no ring for, or None where it
        cannot. A chain that reads its input from the pool: its first stage (the paper's section
        5.2), where a depthwise layer (multiplier 1) heads the second. A chain that pulls its input
        keeps the pulled rows' ring, so there: a run of 1x1 layers ending at such a depthwise layer
        (an inverted bottleneck's expansion), the one after the narrowest pixels; the ring before
        it then keeps those narrow pixels as tall as the depthwise window."""
        if is_transpose(self.layers[0]):
            return None
        if self.element > 1:
            return None
        heads = [i for i, layer in enumerate(self.layers) if i == 0 or not is_pointwise(layer)]
        if self.pulls_input is None:
            return 0 if len(heads) > 1 and _multiplier_one(self.layers[heads[1]]) else None
        after = lambda j: next((h for h in heads if h > j), None)  # noqa: E731 (the head that ends j's run)
        runs = [j for j in range(1, len(self.layers)) if is_pointwise(self.layers[j])
                and after(j) is not None and _multiplier_one(self.layers[after(j)])]
        return min(runs, key=lambda j: (self.layers[j].input_shape[3], -j), default=None)

    def stage_output(self, stage: Stage) -> tuple[int, ...]:
        return self.layers[stage.end - 1].output_shape

    def ring_bytes(self, stage: Stage) -> int:
        _, _, w, c = self.stage_output(stage)
        if self.recomputed is not None and stage == self.stages[self.recomputed]:
            return 0
        if self.line_ring is not None and stage == self.stages[self.line_ring]:
            return self.line_ring_pixels() * c * self.element
        return stage.ring_rows * w * c * self.element

    @cached_property
    def line_ring(self) -> int | None:
        """The ring kept as a line buffer, or None: with `line_buffer`, which the planner sets in a
        chain that pulls its input where that lowers the pool (it costs instructions; other plans
        keep the rings their figures were measured with), the ring the last stage reads, where a
        line buffer is smaller than its rows. The last new row that an
        output row's window needs is made pixel by pixel just ahead of the output pixels that read
        it, so the ring holds the window's rows less one and a window's width of pixels
        (`line_ring_pixels`); it wraps at its own end, not at a row's."""
        i = self._line_candidate()
        if i is None:
            return None
        return i if self.line_ring_pixels(i) < self._ring_row_pixels(i) else None

    @cached_property
    def single_pixel_line(self) -> bool:
        """The line ring and the stages around it make one pixel per iteration: in a narrow map
        (a few pixels per row) a line buffer beats the ring's rows only so, its stages' tiles of two
        pixels reaching a whole row further ahead. Only where neither stage has a 1x1 layer: its
        2x2 tile (two pixels by two channels) loads each weight once per two pixels, and one pixel
        at a time costs a DS-CNN block a fifth more instructions for a sixth of its ring."""
        i = self._line_candidate()
        if i is None or any(is_pointwise(self.layers[j]) for j in range(self.stages[i].first, self.stages[i + 1].end)):
            return False
        return self._line_pixels(i, self._tile(i), self._tile(i + 1)) >= self._ring_row_pixels(i) > self._line_pixels(
            i, 1, 1)

    def _line_candidate(self) -> int | None:
        """The ring that may be a line buffer: the one the last stage reads, in a chain with
        `line_buffer` that pulls its input and does not recompute."""
        i = len(self.stages) - 2
        return None if not self.line_buffer or self.pulls_input is None or i < 0 or self.recompute else i

    def _ring_row_pixels(self, i: int) -> int:
        _, _, w, _ = self.stage_output(self.stages[i])
        return self.stages[i].ring_rows * w

    def line_ring_pixels(self, i: int | None = None) -> int:
        """Pixels of ring i (default: the line ring) as a line buffer (`_line_pixels`)."""
        i = self.line_ring if i is None else i
        return self._line_pixels(i, self.stage_tile(i), self.stage_tile(i + 1))

    def _line_pixels(self, i: int, tile: int, reader_tile: int) -> int:
        """Ring i's pixels as a line buffer, its stage making `tile` pixels per iteration. The next
        stage's tile of T (`reader_tile`) output pixels at column x reads its window's columns up to
        (x + T - 1)s - p + k, made ahead in whole tiles of ring i's stage; that tile's pixels
        overwrite the ring's oldest, which the window's top row must no longer need: (k_h - 1) rows
        and (T - 1)s + k_w + tile - 1 pixels."""
        head = self.layers[self.stages[i + 1].first]
        _, k_h, k_w, _ = head.filter.shape
        _, _, w, _ = self.stage_output(self.stages[i])
        return (k_h - 1) * w + (reader_tile - 1) * head.stride[1] + k_w + tile - 1

    def can_pull(self) -> bool:
        """The chain can pull its input row by row from the application into a ring as tall as
        its first layer's window: NHWC rows (not an NCHW transpose's planes), and no residual ADD,
        which would read each input row again long after the window has passed it. int8 rows only
        (the streamed rows of a 16x8 chain are not described)."""
        return not is_transpose(self.layers[0]) and self.add is None and self.element == 1

    def can_push(self) -> bool:
        """The chain can hand its output to the application row by row as each is made: an
        image's rows (not a global average pool's one pixel); int8 rows only."""
        return self.pool is None and self.element == 1

    @property
    def output_ring_bytes(self) -> int:
        """One output row, where the chain pushes its output: it is handed over as soon as it is
        made, and the next row takes its place (0 when the output is in the pool)."""
        _, _, w, c = self.output_shape
        return 0 if self.pushes_output is None else w * c * self.element

    @property
    def input_ring_rows(self) -> int:
        """Input rows the first layer's window needs at once (0 when the input is in the pool)."""
        return 0 if self.pulls_input is None else self.layers[0].filter.shape[1]

    @property
    def input_ring_bytes(self) -> int:
        _, _, w, c = self.input_shape
        return self.input_ring_rows * w * c * self.element

    def can_recompute(self) -> bool:
        """The paper's recomputation (section 5.2) applies: some stage's pixels can fill the
        window of the depthwise layer after them directly (`_recomputed_layer`). int8 chains only:
        a 16x8 depthwise layer reads its window from the pool, not from a register window."""
        return self.element == 1 and self._recomputed_layer() is not None

    def stage_tile(self, i: int) -> int:
        """Output pixels per iteration of stage i: one in the two stages around a line ring of
        single pixels (`single_pixel_line`), else `_tile`."""
        return 1 if self.single_pixel_line and i >= len(self.stages) - 2 else self._tile(i)

    def _tile(self, i: int) -> int:
        """Output pixels per iteration of stage i: PIXELS where their values of its widest layer fit
        PAIR_BYTES, else one. The second stage of a recomputing chain takes more where they fit:
        side by side, its pixels' windows share all but the stride's columns, so the first stage's
        pixels are made fewer times per output pixel the more it takes (a 3x3 stride-1 depthwise:
        3 x 10 pixels per 8, 3.75 each, against 3 x 4 per 2); the most, in pairs up to
        RECOMPUTE_PIXELS, whose window and pixels fit RECOMPUTE_STACK."""
        stage = self.stages[i]
        widest = max(self.layers[j].output_shape[3] for j in range(stage.first, stage.end))
        if self.recomputed is not None and i == self.recomputed + 1:
            head = self.layers[stage.first]
            _, k_h, k_w, _ = head.filter.shape
            for tile in range(RECOMPUTE_PIXELS, PIXELS, -2):
                if k_h * (k_w + (tile - 1) * head.stride[1]) * head.input_shape[3] + tile * widest <= RECOMPUTE_STACK:
                    return tile
        return PIXELS if PIXELS * widest * self.element <= PAIR_BYTES else 1

    def recomputed_macs(self) -> int:
        """The multiply-accumulates recomputation adds: per output row of the stage after the
        recomputed one, each recomputed pixel of the in-bounds rows of its window is made once per
        window of that stage's tile of pixels whose columns hold it, instead of once in all."""
        if self.recomputed is None:
            return 0
        k = self.recomputed
        stage, head = self.stages[k], self.layers[self.stages[k + 1].first]
        _, h, w, _ = self.stage_output(stage)
        per_pixel = sum(_pixel_macs(self.layers[j]) for j in range(stage.first, stage.end))
        _, o_h, o_w, _ = head.output_shape
        (s_h, s_w), (p_h, p_w), (_, k_h, k_w, _) = head.stride, head.padding, head.filter.shape
        tile = self.stage_tile(k + 1)
        columns = sum(min((min(x + tile, o_w) - 1) * s_w - p_w + k_w, w) - max(x * s_w - p_w, 0)
                      for x in range(0, o_w, tile))
        reads = _tap_count(o_h, s_h, p_h, k_h, h) * columns
        return per_pixel * (reads - h * w)

    @property
    def workspace_bytes(self) -> int:
        """Every ring, one after another in the step's workspace (the input's first, if pulled; the
        output's last, if pushed)."""
        return self.input_ring_bytes + sum(self.ring_bytes(s) for s in self.stages) + self.output_ring_bytes


def _multiplier_one(layer: Layer) -> bool:
    return is_depthwise(layer) and layer.depth_multiplier == 1


def _pixel_macs(layer: Layer) -> int:
    """Multiply-accumulates of one output pixel of a convolution or depthwise layer."""
    _, k_h, k_w, depth = layer.filter.shape
    return layer.output_shape[3] * k_h * k_w * (1 if is_depthwise(layer) else depth)


def _tap_count(outputs: int, stride: int, pad: int, kernel: int, size: int) -> int:
    """In-bounds taps over all output positions along one axis."""
    return sum(min(kernel, size - (o * stride - pad)) - max(0, pad - o * stride) for o in range(outputs))
