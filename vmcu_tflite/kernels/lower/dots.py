"""The dot products: Dot, DotRow, DotLanes, DotLanesPair and the Widen before them, in portable form.

Each statement becomes calls of the runtime's dot-product helpers (vmcu_dsp.h: SMLAD / SMLABB paths
inside them, a portable fallback for the cores without) or a plain loop of scalar products. Where an
instruction set has a form of its own that the C must choose at compile time (its vector registers,
its word instructions), the statement goes through a method an instruction set's lowering extends:
`dot_elements_code`, `dot_widened`, `lower_Widen`, `dot_lanes_code`, `dot_lanes16_code`,
`lanes_pair_word`.

int16 activations (16x8 layers): a Dot over them calls the int16 dot products (vmcu_dot_s16_s8_64 / _32:
SMLAD on input pairs on the DSP path, into int64 accumulators in chunks that cannot overflow int32). A
gathered window meets a filter the converter widened to int16 (vmcu_dot_s16_s16_64 / _32: each word of
two inputs and word of two weights one SMLAD, summed from 0 in int32, then added).

A mixin of `core.CoreLowering`, whose scope and operand helpers it uses.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..c_text import paren, plus
from ..index import Const, Ix
from ..ir import Dot, DotLanes, DotLanesPair, DotRow, Widen
from .names import index_sum


@dataclass(frozen=True)
class Lanes:
    """The operands of a DotLanes as its C reads them: the inputs and taps pointers, the input offset, the
    least and greatest lane count, the lane variable and the scalar loop's statements."""

    x: str
    taps: str
    x_offset: str
    lo: int
    hi: int
    lane: str  # the lane variable
    scalar: list[str]


class DotStatements:
    """The lowering of the dot-product statements."""

    def dot_elements(self, s: Dot, depth: int) -> None:
        """A Dot over int16 activations (a 16x8 layer; no offset: int16 zero points are 0): each
        weight row's sum of products into the accumulator, int64 or int32 as the buffer is
        (vmcu_dot_s16_s8_64 / _32: SMLAD on int16 pairs on the DSP path, the weights widened)."""
        if s.x_offset != "0":
            raise ValueError(f"kernel {self.kernel.name}: a Dot over int16 inputs adds no offset")
        acc_type = self.lookup(s.acc).ctype
        helper = {"int64_t": "vmcu_dot_s16_s8_64", "int32_t": "vmcu_dot_s16_s8_32"}[acc_type]
        self.ref(s.acc)
        lo, hi = self.bounds(s.count)
        pixels_lo, pixels_hi = self.bounds(s.pixels)
        code = []
        for p in range(pixels_hi):
            x = plus(s.x, paren(self.at(s.x, s.x_index + s.x_stride * p)))
            g = len(s.weights)
            if g in (2, 4) and hi > 1 and self.bounds(s.acc_index) == (0, 0) and self.lookup(s.acc).size >= g * (p + 1):
                # the group's rows at once (the inputs loaded once for all of them): rows past `count` point
                # inside the filter (channel_group) and fill accumulators nothing stores
                ws = ", ".join(plus(self.ref(w), paren(s.w_index.c())) for w in s.weights)
                call = (f"{helper.replace('_dot_', f'_dot{g}_')}({x}, {ws}, {s.length.c()}, "
                        f"{plus(s.acc, str(g * p))});")
                code += [call] if p < pixels_lo else [f"if ({s.pixels.c()} > {p}) {{", call, "}"]
                continue
            rows = []
            for k, w in enumerate(s.weights[:hi]):
                acc = f"{s.acc}[{(s.acc_index + len(s.weights) * p + k).c()}]"
                call = f"{acc} = {helper}({x}, {plus(self.ref(w), paren(s.w_index.c()))}, {s.length.c()}, {acc});"
                rows += [call] if k < lo else [f"if ({s.count.c()} > {k}) {{", call, "}"]
            code += rows if p < pixels_lo else [f"if ({s.pixels.c()} > {p}) {{", *rows, "}"]
        self.dot_elements_code(depth, code)

    def dot_elements_code(self, depth: int, code: list[str]) -> None:
        """The calls of a Dot over int16 activations (`dot_elements`), as they are in the portable form."""
        self.code(depth, code)

    def lower_Dot(self, s: Dot, depth: int) -> None:
        pointer = self.lookup(s.x)
        if pointer is not None and pointer.kind == "load" and pointer.ctype != "int8_t":
            self.dot_elements(s, depth)
            return
        if (pointer is not None and pointer.kind == "buffer" and pointer.ctype == "int16_t" and self.kernel.element > 1
                and self.lookup(s.weights[0]).ctype == "int8_t"):  # a chain's int16 pixels in registers
            self.dot_elements(s, depth)
            return
        if pointer is not None and pointer.run_stride is not None:
            raise NotImplementedError(f"kernel {self.kernel.name}: Dot over {s.x}, a load of several runs")
        lo, hi = self.bounds(s.count)
        pixels_lo, pixels_hi = self.bounds(s.pixels)
        widened = pointer is not None and pointer.ctype == "int16_t"
        if (len(s.weights) not in (2, 4) or hi > len(s.weights) or pixels_hi > 2
                and not (widened and (pixels_lo, pixels_hi) == (3, 3))):
            raise ValueError(f"kernel {self.kernel.name}: Dot of up to {hi} of {len(s.weights)} weight rows (2 or 4) "
                             f"and {pixels_lo}-{pixels_hi} inputs (1 or 2; exactly 3 widened)")
        xs = [plus(s.x, paren(self.at(s.x, s.x_index + s.x_stride * p))) for p in range(pixels_hi)]
        four = len(s.weights) == 4
        ws = [plus(w, paren(self.at(w, s.w_index))) for w in s.weights[:4 if four else 1 if hi <= 1 else 2]]
        self.ref(s.acc)
        if widened:
            self.dot_widened(s, xs, ws, depth)
            return
        if s.paired:
            raise ValueError(f"kernel {self.kernel.name}: paired weight rows are read over widened inputs")
        self.ref(s.offsets)
        tail = f"{s.length.c()}, {s.offsets}, {self.param(s.x_offset, 'int32_t')}"
        if four:  # every row (those past the layer's last channel read its row, inside the filter)
            self.code(depth, self.by_pixels(s, lambda pixels: (
                f"vmcu_dot4_s8_offsets({xs[0]}, {xs[1] if pixels > 1 else 0}, {', '.join(ws)}, {tail}, "
                f"{plus(s.acc, paren(s.acc_index.c()))});")))
            return

        def acc(k: int) -> str:
            return f"{s.acc}[{(s.acc_index + k).c()}]"

        def single(p: int) -> str:
            return f"{acc(2 * p)} = vmcu_dot_s8_offsets({xs[p]}, {ws[0]}, {tail}, {acc(2 * p)});"

        def pair(p: int) -> str:
            return (f"vmcu_dot2_s8_offsets({xs[p]}, {ws[0]}, {ws[-1]}, {tail}, "
                    f"{plus(s.acc, paren((s.acc_index + 2 * p).c()))});")

        def either(two: list[str], one: list[str]) -> list[str]:
            """`two` where the Dot uses both weight rows, else `one`."""
            return one if hi <= 1 else two if lo >= 2 else [f"if ({s.count.c()} > 1) {{", *two, "} else {", *one, "}"]

        tile = (f"vmcu_dot2x2_s8_offsets({', '.join(xs)}, {ws[0]}, {ws[-1]}, {tail}, "
                f"{plus(s.acc, paren(s.acc_index.c()))});")
        code = either([pair(0)], [single(0)])
        if pixels_hi == 2:
            both = either([tile], [single(0), single(1)])
            code = both if pixels_lo >= 2 else [f"if ({s.pixels.c()} > 1) {{", *both, "} else {", *code, "}"]
        self.code(depth, code)

    def by_pixels(self, s: Dot, call) -> list[str]:
        """`call(pixels)` for the Dot's number of inputs, a branch where it is not a constant."""
        lo, hi = self.bounds(s.pixels)
        if lo == hi:
            return [call(hi)]
        return [f"if ({s.pixels.c()} > 1) {{", call(2), "} else {", call(1), "}"]

    def dot_widened(self, s: Dot, xs: list[str], ws: list[str], depth: int) -> None:
        """A Dot over a Widen's buffer (the offset is in it): one vmcu_dot_s16_s8 call for the inputs
        and rows used, a branch where that number is not a constant; a tile of three pixels as a
        pair's call and the third pixel's."""
        self.check_widened(s, ws)
        acc = plus(s.acc, paren(s.acc_index.c()))
        wide_weights = self.lookup(s.weights[0]).ctype == "int16_t"  # widened at conversion: words of both

        # a 16x8 layer's window holds its int16 inputs as they are: sums exact in int64, or wrapping in int32
        helper = ({"int64_t": "vmcu_dot_s16_s16_64", "int32_t": "vmcu_dot_s16_s16_32"}[self.lookup(s.acc).ctype]
                  if self.kernel.element > 1 else "vmcu_dot_s16_s16")

        def call(pixels: int, rows: int, xs: list[str] = xs, acc: str = acc) -> str | list[str]:
            if pixels == 3:
                third = plus(s.acc, paren((s.acc_index + 2 * len(s.weights)).c()))
                return [call(2, rows), call(1, rows, xs[2:], third)]
            if wide_weights:
                return (f"{helper}({xs[0]}, {xs[1] if pixels > 1 else 0}, {ws[0]}, "
                        f"{ws[-1] if rows > 1 else 0}, {s.length.c()}, {acc});")
            paired = "_paired" if s.paired else ""  # rows interleaved in pairs (paired_weights.py)
            if len(ws) == 4:
                return (f"vmcu_dot4_s16_s8{paired}({xs[0]}, {xs[1] if pixels > 1 else 0}, {', '.join(ws)}, "
                        f"{s.length.c()}, {acc});")
            return (f"vmcu_dot_s16_s8{paired}({xs[0]}, {xs[1] if pixels > 1 else 0}, {ws[0]}, "
                    f"{ws[-1] if rows > 1 else 0}, {s.length.c()}, {acc});")

        self.code(depth, self.widened_branches(s, ws, call))

    def check_widened(self, s: Dot, ws: list[str]) -> None:
        """A Dot over a widened buffer starts at a constant multiple of 4, and int16 weights come in pairs of rows."""
        if any(self.bounds(e)[0] % 4 or self.bounds(e)[0] != self.bounds(e)[1] for e in (s.x_index, s.x_stride)):
            raise ValueError(f"kernel {self.kernel.name}: a widened Dot starts at a constant multiple of 4")
        if self.lookup(s.weights[0]).ctype == "int16_t" and len(ws) == 4:
            raise ValueError(f"kernel {self.kernel.name}: int16 weights in a Dot of two rows only")
        if s.paired and (self.lookup(s.weights[0]).ctype != "int8_t" or self.bounds(s.length)[0] % 4
                         or self.bounds(s.length)[0] != self.bounds(s.length)[1]):
            raise ValueError(f"kernel {self.kernel.name}: paired weight rows are int8, read in whole words")

    def widened_branches(self, s: Dot, ws: list[str], make) -> list[str]:
        """`make(pixels, rows)` (a line of C, or lines) for the inputs and rows a widened Dot uses, a
        branch per case where they are not constants."""
        rows = [len(ws)] if len(ws) == 4 else range(self.bounds(s.count)[1], self.bounds(s.count)[0] - 1, -1)
        cases = [(p, r) for p in range(self.bounds(s.pixels)[1], self.bounds(s.pixels)[0] - 1, -1) for r in rows]

        def made(p: int, r: int) -> list[str]:
            lines = make(p, r)
            return [lines] if isinstance(lines, str) else lines
        if len(cases) == 1:
            return made(*cases[0])
        code = []
        for k, (p, r) in enumerate(cases):
            test = f"{s.pixels.c()} == {p}" + ("" if len(ws) == 4 else f" && {s.count.c()} == {r}")
            code += [f"if ({test}) {{" if k == 0 else "} else {" if k == len(cases) - 1
                     else f"}} else if ({test}) {{", *made(p, r)]
        return code + ["}"]

    def lower_Widen(self, s: Widen, depth: int) -> None:
        """The int8 inputs widened to 16 bits with the offset (in order for int16 weights)."""
        self.ref(s.dst)
        self.ref(s.src)
        self.ref(s.offsets)
        src = plus(s.src, paren(self.at(s.src, s.src_index)))
        if s.natural:  # for int16 weights: in order on every core
            self.line(depth, f"vmcu_widen_s8_natural({plus(s.dst, paren(s.dst_index.c()))}, {src}, {s.length.c()}, "
                             f"{s.offsets}, {self.param(s.x_offset, 'int32_t')});")
            return
        self.line(depth, f"vmcu_widen_s8({plus(s.dst, paren(s.dst_index.c()))}, {src}, {s.length.c()}, {s.offsets}, "
                         f"{self.param(s.x_offset, 'int32_t')});")

    def lower_DotRow(self, s: DotRow, depth: int) -> None:
        pointer = self.lookup(s.x)
        if pointer is not None and pointer.run_stride is not None:
            raise NotImplementedError(f"kernel {self.kernel.name}: DotRow over {s.x}, a load of several runs")
        if self.lookup(s.w) is None or self.lookup(s.w).ctype != "int32_t":
            raise ValueError(f"kernel {self.kernel.name}: DotRow taps {s.w} are not an int32 buffer")
        if self.bounds(s.length)[1] <= 0:  # an edge pixel's taps that are all outside the input
            return
        self.ref(s.acc)
        self.ref(s.offsets)
        x = plus(s.x, paren(self.at(s.x, s.x_index)))
        w = plus(self.ref(s.w), paren(s.w_index.c()))
        x_offset = self.param(s.x_offset, 'int32_t')
        if s.channels == 2:
            self.dot_columns(s, x, x_offset, depth)
            return
        if s.acc1 is None:
            self.line(depth, f"{s.acc}[0] = vmcu_dot_row_s8({x}, {w}, {s.length.c()}, {s.offsets}, {x_offset}, "
                             f"{s.acc}[0]);")
            return
        self.ref(s.acc1)
        self.line(depth, f"vmcu_dot_row2_s8({x}, {w}, {s.length.c()}, {s.offsets}, {x_offset}, {s.acc}, {s.acc1});")

    def dot_columns(self, s: DotRow, x: str, x_offset: str, depth: int) -> None:
        """A two-channel DotRow (a row of a column-pair plane) as vmcu_dot_cols_s8: its taps are a whole
        kernel row (a constant odd length) from tap w_index, which vmcu_column_taps_s8 laid out as pairs
        by columns on the DSP path, the two lanes w_pitch apart otherwise."""
        length, pitch = self.bounds(s.length), self.bounds(s.w_pitch)
        if (length[0] != length[1] or length[0] % 2 == 0 or pitch[0] != pitch[1] or s.acc1 is not None
                or s.pixels not in (1, 2, 4)):
            raise ValueError(f"kernel {self.kernel.name}: a two-channel DotRow of {s.length.c()} taps for "
                             f"{s.pixels} pixels, not a constant odd kernel row for 1, 2 or 4")
        self.line(depth, f"vmcu_dot_cols_s8({x}, {self.ref(s.w)}, {s.w_index.c()}, {length[0]}, {pitch[0]}, "
                         f"{s.offsets}, {x_offset}, {s.acc}, {s.pixels});")

    def lower_DotLanes(self, s: DotLanes, depth: int) -> None:
        pointer = self.lookup(s.x)
        if pointer is not None and pointer.kind == "load" and pointer.ctype != "int8_t":
            self.dot_lanes_elements(s, depth)
            return
        lo, hi = self.bounds(s.lanes)
        if hi > 8:
            raise ValueError(f"kernel {self.kernel.name}: DotLanes of up to {hi} lanes (at most 8)")
        x_index, w_index = self.at(s.x, s.x_index), paren(s.w_index.c())
        registers = self.lookup(s.w) is not None  # taps a FlashLoad copied into a buffer
        if registers and hi > 1:
            raise ValueError(f"kernel {self.kernel.name}: DotLanes over the taps in {s.w} has one lane")
        w = self.ref(s.w) if registers else self.filter(s.w, s.lane_order)
        x_offset = self.param(s.x_offset, "int32_t")
        self.ref(s.acc)
        self.ref(s.offsets)
        l = self.fresh("l")
        scalar = [f"{s.acc}[{l}] += ((int32_t){s.x}[{index_sum(x_index, l)}] + {x_offset}) * "
                  f"{'' if registers else '(int32_t)'}{w}[{tap(index_sum(w_index, l), s.lane_order)}];"]
        self.dot_lanes_code(s, Lanes(plus(s.x, paren(x_index)), plus(w, w_index), x_offset, lo, hi, l, scalar), depth)

    def group_test(self, w_index: Ix) -> str:
        """The C test that a lane-ordered filter's taps from `w_index` on start a group of four channels,
        which the DSP path loads as two words ("" where the indexes say so: a plane's channels may
        start mid-group)."""
        return "" if self.multiple_of_4(w_index) else f"({paren(w_index.c())} & 3) == 0"

    def filter(self, expr: str, lane_order: bool) -> str:
        """The local of a depthwise filter: int8, or int16 where it is lane-ordered (kernels/ir.py)."""
        return self.param(expr, "int16_t *" if lane_order else "int8_t *")

    def dot_lanes_code(self, s: DotLanes, lanes: Lanes, depth: int) -> None:
        """The loop over a DotLanes' lanes adding each scalar product."""
        self.for_lanes(depth, lanes.lane, s.acc, s.lanes, lanes.lo, lanes.hi)
        self.code(depth + 1, lanes.scalar)
        self.line(depth, "}")

    def dot_lanes_elements(self, s: DotLanes, depth: int) -> None:
        """DotLanes over int16 inputs (a 16x8 depthwise layer; no offset): each lane's product added
        to its accumulator in the accumulator's type (int64, or int32 wrapping). The offset is a layer's
        input_offset (a chain's member's too), which the kernel's check proves 0 (vmcu_layer16_ok)."""
        if not s.x_offset.endswith("->input_offset") and s.x_offset != "0":
            raise ValueError(f"kernel {self.kernel.name}: a DotLanes over int16 inputs adds no offset")
        lo, hi = self.bounds(s.lanes)
        if self.lookup(s.w) is not None:
            raise ValueError(f"kernel {self.kernel.name}: DotLanes over int16 inputs reads its taps from flash")
        w = self.param(s.w, "int8_t *")
        acc_type = self.lookup(s.acc).ctype
        self.ref(s.acc)
        l = self.fresh("l")
        x_index, w_index = self.at(s.x, s.x_index), paren(s.w_index.c())
        product = f"(int32_t){s.x}[{index_sum(x_index, l)}] * (int32_t){w}[{index_sum(w_index, l)}]"
        update = (f"{s.acc}[{l}] += (int64_t)({product});" if acc_type == "int64_t" else
                  f"{s.acc}[{l}] = (int32_t)((uint32_t){s.acc}[{l}] + (uint32_t)({product}));")
        self.dot_lanes16_code(s, Lanes(plus(s.x, paren(x_index)), plus(w, w_index), "0", lo, hi, l, [update]), depth)

    def dot_lanes16_code(self, s: DotLanes, lanes: Lanes, depth: int) -> None:
        """The loop over the lanes of a DotLanes over int16 inputs, adding each product."""
        self.for_lanes(depth, lanes.lane, s.acc, s.lanes, lanes.lo, lanes.hi)
        self.code(depth + 1, lanes.scalar)
        self.line(depth, "}")

    def lower_DotLanesPair(self, s: DotLanesPair, depth: int) -> None:
        """A loop over the taps of the scalar products, after the instruction set's own form of a full
        group (`lanes_pair_word`)."""
        lo, hi = self.bounds(s.lanes)
        if hi > 8 or (hi > 4 and s.half is not None):
            raise ValueError(f"kernel {self.kernel.name}: DotLanesPair of up to {hi} lanes (at most 8, four by halves)")
        x_index, x_step = self.at(s.x, s.x_index), self.at(s.x, s.x_stride)
        w, w_index, w_step = self.filter(s.w, s.lane_order), paren(s.w_index.c()), paren(s.w_stride.c())
        x_offset, taps = self.param(s.x_offset, "int32_t"), paren(s.taps.c())
        for name in (s.acc, s.acc1, s.offsets) + (() if s.acc2 is None else (s.acc2,)):
            self.ref(name)
        self.lanes_pair_word(s, depth, plus(s.x, paren(x_index)), plus(w, w_index), taps, x_step, w_step, lo)
        t, l = self.fresh("t"), self.fresh("l")
        self.line(depth, f"for (int32_t {t} = 0; {t} < {taps}; ++{t}) {{")
        first, step = (0, f"++{l}") if s.half is None else (s.half, f"{l} += 2")
        self.line(depth + 1, f"for (int32_t {l} = {first}; {l} < {paren(s.lanes.c())}; {step}) {{")
        at = f"{paren(x_index)} + {t} * {paren(x_step)} + {l}"
        self.code(depth + 2, [
            f"const int32_t w_{l} = (int32_t){w}[{tap(f'{w_index} + {t} * {w_step} + {l}', s.lane_order)}];",
            f"{s.acc}[{l}] += ((int32_t){s.x}[{at}] + {x_offset}) * w_{l};",
            f"{s.acc1}[{l}] += ((int32_t){s.x}[{at} + {s.shift} * {paren(x_step)}] + {x_offset}) * w_{l};",
            *([] if s.acc2 is None else
              [f"{s.acc2}[{l}] += ((int32_t){s.x}[{at} + {2 * s.shift} * {paren(x_step)}] + {x_offset}) * w_{l};"])])
        self.line(depth + 1, "}")
        self.line(depth, "}")

    def lanes_pair_word(self, s: DotLanesPair, depth: int, x: str, w: str, taps: str, x_step: str, w_step: str,
                        lo: int) -> None:
        """An instruction set's form of a DotLanesPair's full group, written before the scalar loop as
        `if (full) {...} else`: none in the portable form."""

    def for_lanes(self, depth: int, k: str, acc: str, count: Ix, lo: int, hi: int, start: Ix = Const(0),
                  size: int = 0) -> None:
        """`for` over `count` elements of the accumulator buffer `acc` from `start` on, with a
        constant trip count (the rest of the buffer, `count` tested inside) unless `count` is
        constant: fully unrolled, every acc[k] has a constant index, so the compiler keeps the
        accumulators in registers instead of an array on the stack. `size`: the lanes of one pixel
        of a tile (the accumulators of every pixel otherwise)."""
        size = size or self.lookup(acc).size - self.bounds(start)[1]
        if hi > size:
            raise ValueError(f"kernel {self.kernel.name}: up to {hi} lanes of {acc}[{size}]")
        if lo == hi:
            self.line(depth, f"for (int32_t {k} = 0; {k} < {hi}; ++{k}) {{")
        else:
            self.line(depth, f"for (int32_t {k} = 0; {k} < {size}; ++{k}) if ({k} < {paren(count.c())}) {{")


def tap(index: str, lane_order: bool) -> str:
    """The C index of a depthwise filter's tap `index` (the int8 filter's): itself, or where a
    lane-ordered filter holds it (vmcu_lane_order)."""
    return f"vmcu_lane_order({index})" if lane_order else index
