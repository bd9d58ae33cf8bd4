"""The Helium (MVE) lowering: the portable C with the M-profile vector extension's forms under #if VMCU_MVE.

`HeliumLowering` extends the DSP lowering (`dsp.py`; a Cortex-M55 has the DSP extension too, and
each form is chosen by the compiler from the core's macros) wherever Helium has a form of its own,
each written as `#if VMCU_MVE` {vector form} `#else` {the form below} `#endif`, or as a vector form
that falls through to the scalar one for a partial tile:

- accumulators of four or eight int32 lanes (a depthwise group) kept in vector registers from their
  InitBias to their Requantize (`lane_accumulator`), stored to their buffer only where a scalar
  statement reads them; a pixel pair's two groups of eight over a kernel row at once, each input
  column loaded and offset once for both pixels (vmcu_mac8x2_row_s8_mve);
- 16x8 depthwise lanes whose int64 accumulators take their products through a vector of int32
  partial sums (`wide_lanes`), joined to the int64 lanes before each Requantize;
- dot products over int16 activations as VMLALDAVA.S16 / VMLADAVA.S16 (the `_mve` helpers), and
  over a tile whose widening added no offset straight from the int8 source (the Widen skipped);
- requantization of four or eight lanes, a tile's rows or a whole 2x2 tile as vectors.
"""
from __future__ import annotations

import re

from ..c_text import paren, plus
from ..index import Const, Ix
from ..ir import (Accumulate, Dot, DotLanes, DotLanesPair, InitBias, Loop, RAMFree, RAMStore, RegAlloc, Requantize,
                  Widen)
from ..schedule import loop_range, walk
from .core import CoreLowering
from .dots import Lanes
from .dsp import DspLowering

# Products of a 16x8 layer are below 2^22 in magnitude (int16 times int8): 511 of them fit an int32 sum.
PARTIAL_PRODUCTS = 511
# GEMM rows vmcu_gemm_mve_k<len>_b*_run take unrolled: pixel 1's inputs len bytes on, in VLDRB's reach;
# past it (MVE_WIDE_ROWS) pixel 1's through a pointer of their own, anywhere.
MVE_ROWS = (8, 16, 24, 32, 40, 48, 64, 80, 96)
MVE_WIDE_ROWS = (104, 112, 120, 128, *range(144, 513, 16))
# Below this, rows of other lengths are cheaper in GCC's unrolled C than in the looped assembly's two
# passes (a stem's gathered rows of 12: 1.54 instructions per MAC against 1.78).
MVE_LOOPED_SHORTEST = 16


class HeliumLowering(DspLowering):
    """The DSP lowering with Helium's vector forms under VMCU_MVE."""

    def isa_state(self, first: CoreLowering | None) -> None:
        super().isa_state(first)
        self.unwidened: dict[int, Widen] = {}  # widened buffers (by serial) Helium reads from their int8 source
        self.vectors: set[int] = set()  # four-lane accumulators (by serial) Helium keeps in a vector register
        self.partials: set[int] = set()  # int64 lanes (by serial) whose products Helium sums in int32 first

    def after_statement(self, stmt, rest, depth: int) -> None:
        """After a RegAlloc of lanes Helium keeps in vector registers: their vectors' declarations."""
        super().after_statement(stmt, rest, depth)
        if isinstance(stmt, RegAlloc) and lane_accumulator(stmt, rest):
            self.vectors.add(self.lookup(stmt.name).serial)
            self.lines.append("#if VMCU_MVE")
            self.line(depth, f"int32x4_t {stmt.name}_v; /* {stmt.name} in a vector register */" if stmt.size == 4
                      else f"int32x4_t {stmt.name}_e, {stmt.name}_o; /* {stmt.name}'s even and odd lanes */")
            self.line(depth, f"(void){stmt.name};")
            self.lines.append("#endif")
        if isinstance(stmt, RegAlloc) and wide_lanes(stmt, rest, self.ranges):
            self.partials.add(self.lookup(stmt.name).serial)
            self.lines.append("#if VMCU_MVE")
            self.line(depth, f"int32x4_t {stmt.name}_s = vdupq_n_s32(0); /* {stmt.name}'s products not yet "
                             f"added to it */")
            self.lines.append("#endif")

    def partial(self, name: str) -> bool:
        """Whether `name` is a 16x8 depthwise accumulator of four int64 lanes with a vector of int32
        partial sums on Helium (`wide_lanes`): DotLanes adds to the vector, Requantize first
        flushes it into the int64 lanes."""
        pointer = self.lookup(name)
        return pointer is not None and pointer.serial in self.partials

    def vector(self, name: str) -> bool:
        """Whether `name` is a four-lane accumulator Helium keeps in a vector (`lane_accumulator`)."""
        pointer = self.lookup(name)
        return pointer is not None and pointer.serial in self.vectors

    # -- statements ------------------------------------------------------------------------------

    def zero16(self, s: RegAlloc, depth: int) -> None:
        self.lines.append("#if VMCU_MVE")  # vector stores (newlib's memset: about 2 instructions a word)
        self.line(depth, f"vmcu_zero16_mve({s.name}, {s.size});")
        self.lines.append("#else")
        super().zero16(s, depth)
        self.lines.append("#endif")

    def lower_Accumulate(self, s: Accumulate, depth: int) -> None:
        """acc[k] += src[k]: four sums per vector (vmcu_accumulate_s8_mve); int16 values (a 16x8
        chain's) one at a time on every core."""
        if self.lookup(s.src) is not None and self.lookup(s.src).ctype == "int16_t":
            super().lower_Accumulate(s, depth)
            return
        index = paren(self.at(s.src, s.src_index))
        self.lines.append("#if VMCU_MVE")
        self.line(depth, f"vmcu_accumulate_s8_mve({s.acc}, {plus(s.src, index)}, {s.count.c()});")
        self.lines.append("#else")
        super().lower_Accumulate(s, depth)
        self.lines.append("#endif")

    def dot_elements_code(self, depth: int, code: list[str]) -> None:
        """The same calls of the MVE forms (VMLALDAVA.S16 / VMLADAVA.S16, eight products each)."""
        helium = [re.sub(r"\b(vmcu_dot\d?_s16_s8_(?:64|32))\(", r"\1_mve(", line) for line in code]
        self.lines.append("#if VMCU_MVE")
        self.code(depth, helium)
        self.lines.append("#else")
        super().dot_elements_code(depth, code)
        self.lines.append("#endif")

    def dot_widened(self, s: Dot, xs: list[str], ws: list[str], depth: int) -> None:
        """Where the widening added no offset (`offset.py`) and Helium skipped it (`lower_Widen`), the
        int8 source itself: 16 lanes per VMLADAVA, not 8."""
        widen = self.unwidened.get(self.lookup(s.x).serial)
        if widen is None:
            super().dot_widened(s, xs, ws, depth)
            return
        self.check_widened(s, ws)
        acc = plus(s.acc, paren(s.acc_index.c()))
        narrow = [self.narrow_input(widen, s.x_index + p * s.x_stride) for p in range(len(xs))]

        def call_mve(pixels: int, rows: int) -> str:
            if len(ws) == 4:
                return (f"vmcu_mve_dots4({narrow[0]}, {narrow[1] if pixels > 1 else 0}, {', '.join(ws)}, "
                        f"{s.length.c()}, 0, {acc});")
            return (f"vmcu_mve_dots({narrow[0]}, {narrow[1] if pixels > 1 else 0}, {ws[0]}, "
                    f"{ws[-1] if rows > 1 else 0}, {s.length.c()}, 0, {acc});")

        self.lines.append("#if VMCU_MVE")
        self.code(depth, self.widened_branches(s, ws, call_mve))
        self.lines.append("#else")
        super().dot_widened(s, xs, ws, depth)
        self.lines.append("#endif")

    def narrow_input(self, widen: Widen, index: Ix) -> str:
        """The int8 source of element `index` of a Widen's buffer (`narrow_index`)."""
        return plus(widen.src, paren(self.at(widen.src, Const(self.narrow_index(widen, index)))))

    def narrow_index(self, widen: Widen, index: Ix) -> int:
        """The index into the Widen's source of element `index` of its buffer: the Widen maps
        dst_index + i to src_index + i, both linear in at most one loop variable (a tile's pixel t)."""
        at = self.bounds(index)[0]
        (var,) = widen.dst_index.variables() | widen.src_index.variables() or {"_"}
        dst0, dst1 = (int(widen.dst_index.evaluate({var: v})) for v in (0, 1))
        pixel, apart = divmod(at - dst0, dst1 - dst0) if dst1 != dst0 else (0, at - dst0)
        if apart:
            raise ValueError(f"kernel {self.kernel.name}: element {at} of {widen.dst} is not a pixel its Widen wrote")
        return int(widen.src_index.evaluate({var: pixel}))

    def gemm_run(self, s: Loop, depth: int) -> int | None:
        """The DSP assembly's call (and the declarations it needs) for the DSP path, then Helium's
        (`mve_gemm_run`): both are `if (...) {...} else` before the loop, at most one compiled."""
        tile = super().gemm_run(s, depth)
        self.mve_gemm_run(s, depth)
        return tile

    def mve_gemm_run(self, s: Loop, depth: int) -> None:
        """A GEMM's loop over groups of four channels as one call of the runtime's Helium loop for a
        tile of two pixels whose widening Helium skipped (the offset folded into the bias), under
        VMCU_MVE_GEMM_RUN: vmcu_gemm_mve_k<len>_b16_run / _b32_run, each row unrolled, for rows of
        MVE_ROWS inputs with the pixels one row apart in their int8 source and for rows of
        MVE_WIDE_ROWS; vmcu_gemm_mve_b*_run for the others from MVE_LOOPED_SHORTEST inputs on
        (vmcu_dsp.h). The sums stay in registers from bias to byte. The loop itself follows for a
        tile of one pixel (and is the whole of it on other cores)."""
        parts = self.gemm_shape(s)
        if parts is None or s.step != 4:
            return
        dot, requant, rows, bias, length = parts
        widen = self.unwidened.get(self.lookup(dot.x).serial)
        source = self.lookup(widen.src) if widen is not None else None
        if widen is None or (source is not None and source.run_stride is not None) \
                or bias.ctype not in ("int16_t", "int32_t"):
            return  # a strided load's copy is not one run; the assembly reads int16 or int32 biases
        first, second = (self.narrow_index(widen, dot.x_index + t * dot.x_stride) for t in (0, 1))
        unrolled = (length in MVE_ROWS and second - first == length) or length in MVE_WIDE_ROWS
        if not unrolled and length < MVE_LOOPED_SHORTEST:
            return
        u = s.var
        multiplier, shift, offset, w0, channel, out, table, both = self.gemm_operands(dot, requant, rows, bias)
        bits = 16 if bias.ctype == "int16_t" else 32
        self.lines.append("#if VMCU_MVE_GEMM_RUN")
        self.code(depth, [
            f"if ({both}) {{",
            f"const int32_t {u} = {s.lo.c()};",
            f"const vmcu_gemm_mve_tile tile = {{{self.narrow_input(widen, dot.x_index)}, {w0}, {table} + {channel}, "
            f"{multiplier} + {channel}, {shift} + {channel}, 2 * {offset} + 1, {out}, "
            f"{paren(requant.dst_stride.c())}, ({paren(s.hi.c())} - {u}) / 4, {self.clamp_bounds(requant)}, "
            f"{length}, {second - first}}};",
            f"vmcu_gemm_mve_{f'k{length}_' if unrolled else ''}b{bits}_run(&tile);",
            "} else"])
        self.lines.append("#endif")

    def lower_Widen(self, s: Widen, depth: int) -> None:
        """Where the offset is 0 (folded into the bias, `offset.py`) Helium skips the widening: its dot
        products read the int8 source (`dot_widened`), in plain rows: not for paired ones (`read_paired`)."""
        skipped = (not s.natural and s.x_offset == "0" and len(s.dst_index.variables() | s.src_index.variables()) <= 1
                   and (self.own_buffer(s.src) or self.source_outlives_dots(s.dst))  # a gathered copy, or a load
                   and not self.read_paired(s.dst))
        if not skipped:
            super().lower_Widen(s, depth)
            return
        self.unwidened[self.lookup(s.dst).serial] = s
        self.lines.append("#if VMCU_MVE")
        self.line(depth, f"(void){s.dst}; /* the dot products read {s.src} */")
        self.lines.append("#else")
        super().lower_Widen(s, depth)
        self.lines.append("#endif")

    def read_paired(self, buffer: str) -> bool:
        """Whether a Dot over the widened `buffer` reads paired weight rows (`paired_weights.py`, the `dsp`
        tuning's): the MVE forms over the int8 source read plain rows, so such a buffer is widened."""
        return any(isinstance(p.stmt, Dot) and p.stmt.x == buffer and p.stmt.paired for p in walk(self.kernel.body))

    def source_outlives_dots(self, buffer: str) -> bool:
        """Whether the Dots over the widened `buffer` all run before the kernel stores or frees any
        pool byte after its RegAlloc: where Helium skips a Widen of a load, its dot products read the
        int8 source through the load's pointer into the pool, which must still hold those bytes (a
        GEMM that widens its rows once for all its segments stores each segment between their Dots).
        A Widen of a buffer of the kernel's own (a gathered window) needs no such check."""
        for stmts in reversed(self.bodies_open):
            declared = [k for k, t in enumerate(stmts) if isinstance(t, RegAlloc) and t.name == buffer]
            if not declared:
                continue
            written = False
            for stmt in stmts[declared[-1] + 1:]:
                inner = [placed.stmt for placed in walk([stmt])]
                dots = any(isinstance(t, Dot) and t.x == buffer for t in inner)
                writes = any(isinstance(t, (RAMStore, RAMFree)) for t in inner)
                if dots and (written or (writes and isinstance(stmt, Loop))):
                    return False
                written |= writes
            return True
        return False

    def dot_lanes_code(self, s: DotLanes, lanes: Lanes, depth: int) -> None:
        """Four lanes in a vector register: one multiply and one add (vmcu_mac4_s8_mve); eight: 16-bit
        lanes, the products widened by VMULLB/VMULLT (vmcu_mac8_s8_mve)."""
        x, taps, x_offset, lo, hi, l = lanes.x, lanes.taps, lanes.x_offset, lanes.lo, lanes.hi, lanes.lane
        size = self.lookup(s.acc).size
        mve = self.vector(s.acc) and (size == 8 or hi == 4)  # the vector path takes the lanes
        if not mve:
            super().dot_lanes_code(s, lanes, depth)
            return
        self.lines.append("#if VMCU_MVE")
        if size == 4:
            four = "if (" + ("1" if lo == 4 else f"{s.lanes.c()} == 4") + ") {"
            self.code(depth, [four, f"{s.acc}_v = vmcu_mac4_s8_mve({x}, {taps}, {x_offset}, {s.acc}_v);", "} else {",
                              f"vst1q_s32({s.acc}, {s.acc}_v);"])
            self.for_lanes(depth + 1, l, s.acc, s.lanes, lo, hi)
            self.code(depth + 2, lanes.scalar)
            self.line(depth + 1, "}")
            self.line(depth + 1, f"{s.acc}_v = vld1q_s32({s.acc});")
            self.line(depth, "}")
        else:
            self.line(depth, f"vmcu_mac8_s8_mve({x}, {taps}, {x_offset}, {s.lanes.c()}, &{s.acc}_e, &{s.acc}_o);")
        self.lines.append("#else")
        super().dot_lanes_code(s, lanes, depth)
        self.lines.append("#endif")

    def lower_DotLanesPair(self, s: DotLanesPair, depth: int) -> None:
        """A pixel pair's groups of four or eight in vector registers: the kernel row's columns, each
        loaded and offset once for both pixels (vmcu_mac4x2_row_s8_mve / vmcu_mac8x2_row_s8_mve, lanes
        past `lanes` adding 0)."""
        if not (self.vector(s.acc) and self.vector(s.acc1)):
            super().lower_DotLanesPair(s, depth)
            return
        x = plus(s.x, paren(self.at(s.x, s.x_index)))
        w = plus(self.param(s.w, "int8_t *"), paren(s.w_index.c()))
        eight = self.lookup(s.acc).size == 8
        sums = (f"&{s.acc}_e, &{s.acc}_o, &{s.acc1}_e, &{s.acc1}_o" if eight else f"&{s.acc}_v, &{s.acc1}_v")
        self.lines.append("#if VMCU_MVE")
        self.line(depth, f"vmcu_mac{8 if eight else 4}x2_row_s8_mve({x}, {w}, {paren(s.taps.c())}, {s.shift}, "
                         f"{self.at(s.x, s.x_stride)}, {paren(s.w_stride.c())}, {self.param(s.x_offset, 'int32_t')}, "
                         f"{s.lanes.c()}, {sums});")
        self.lines.append("#else")
        super().lower_DotLanesPair(s, depth)
        self.lines.append("#endif")

    def lower_requantize_pair(self, s: Requantize, depth: int, k: str, constants: tuple[str, str], offset: str,
                              hoisted: bool) -> None:
        """A pixel pair's vector groups requantized as two vectors of four or eight lanes
        (vmcu_requantize4_mve / vmcu_requantize8_mve), the scalar form under #else; a form Helium does
        not vectorize stores the vectors to their buffers for the scalar loop."""
        if not (self.vector(s.acc) and self.vector(s.acc1)):
            super().lower_requantize_pair(s, depth, k, constants, offset, hoisted)
            return
        eight = self.lookup(s.acc).size == 8
        self.lines.append("#if VMCU_MVE")
        if s.form.narrow or s.form.shifted:
            quant = paren(s.quant)
            tables = self.lane_constants(s, self.param(f"{quant}->requant.multiplier", "int32_t *"),
                                         self.param(f"{quant}->requant.shift", "int8_t *"), offset)
            form = "1" if s.form.shifted else "0"
            for acc, at in ((s.acc, s.dst_index), (s.acc1, s.dst_index + s.dst_stride)):
                dst = plus(s.dst, paren(self.at(s.dst, at)))
                lanes = f"{acc}_e, {acc}_o" if eight else f"{acc}_v"
                self.line(depth, f"vmcu_requantize{8 if eight else 4}_mve({lanes}, {tables}, {dst}, {s.count.c()}, "
                                 f"{form});")
            self.lines.append("#else")
            super().lower_requantize_pair(s, depth, k, constants, offset, hoisted)
            self.lines.append("#endif")
            return
        self.code(depth, [f"vmcu_store8_mve({acc}, {acc}_e, {acc}_o);" if eight else f"vst1q_s32({acc}, {acc}_v);"
                          for acc in (s.acc, s.acc1)])
        self.lines.append("#endif")
        super().lower_requantize_pair(s, depth, k, constants, offset, hoisted)

    def dot_lanes16_code(self, s: DotLanes, lanes: Lanes, depth: int) -> None:
        """The four products by one VMUL into the int32 partial sums (`partial`)."""
        if not self.partial(s.acc):
            super().dot_lanes16_code(s, lanes, depth)
            return
        x, taps = lanes.x, lanes.taps
        self.lines.append("#if VMCU_MVE")
        self.line(depth, f"{s.acc}_s = vmcu_mac4_s16_s8_mve({x}, {taps}, {s.acc}_s);" if lanes.lo == 4 else
                  f"{s.acc}_s = vmcu_mac4_s16_s8_z_mve({x}, {taps}, {s.lanes.c()}, {s.acc}_s);")
        self.lines.append("#else")
        super().dot_lanes16_code(s, lanes, depth)
        self.lines.append("#endif")

    def before_bias(self, s: InitBias, depth: int) -> None:
        super().before_bias(s, depth)
        if self.partial(s.acc):  # every lane set again: no partial sum left over
            self.lines.append("#if VMCU_MVE")
            self.line(depth, f"{s.acc}_s = vdupq_n_s32(0);")
            self.lines.append("#endif")

    def bias_loop(self, s: InitBias, depth: int, bias: str, k: str, width: int, lo: int) -> None:
        """A vector accumulator's biases loaded into its registers."""
        vector = self.vector(s.acc) and width == self.lookup(s.acc).size and self.bounds(s.acc_index) == (0, 0)
        at = plus(bias, paren(s.channel.c()))
        if vector and width == 4:  # the lanes past count load as 0
            load = "vldrhq" if s.ctype == "int16_t" else "vldrwq"
            self.lines.append("#if VMCU_MVE")
            self.line(depth, f"{s.acc}_v = {load}_s32({at});" if lo >= 4 else  # no VPST where all four are used
                      f"{s.acc}_v = {load}_z_s32({at}, vctp32q((uint32_t){paren(s.count.c())}));")
            self.lines.append("#else")
        elif vector:  # eight lanes: the even channels' biases and the odd ones'
            self.lines.append("#if VMCU_MVE")
            self.line(depth, f"vmcu_bias8_{'s16' if s.ctype == 'int16_t' else 's32'}_mve({at}, {s.count.c()}, "
                             f"&{s.acc}_e, &{s.acc}_o);")
            self.lines.append("#else")
        super().bias_loop(s, depth, bias, k, width, lo)
        if vector:
            self.lines.append("#endif")
        elif self.vector(s.acc):
            raise ValueError(f"kernel {self.kernel.name}: InitBias of part of the lanes of {s.acc}")

    def before_requantize(self, s: Requantize, depth: int) -> None:
        super().before_requantize(s, depth)
        if self.partial(s.acc):  # the int32 partial sums joined to the int64 lanes first
            self.ref(s.acc)
            self.lines.append("#if VMCU_MVE")
            self.line(depth, f"vmcu_flush4_s64_mve({s.acc}, &{s.acc}_s);")
            self.lines.append("#endif")

    def requantize_vectors(self, s: Requantize, depth: int, multiplier: str, shift: str, offset: str, t: str) -> bool:
        """Helium's vector form of a narrow or shifted Requantize (the C helpers' last argument says
        which), written before the scalar loop; True where that loop then goes under #else (the caller
        closes it with #endif). The vector forms:
        - a depthwise group's accumulator vectors (four lanes, or eight as even and odd), one pixel;
        - each pixel's four channels of a 4x2 tile (acc[4t + k]);
        - a whole 2x2 tile, its constants gathered and its bytes scattered (the scalar loop takes the
          tile that is not whole: `if (whole) {vector} else` falls through to it).
        A depthwise accumulator the scalar form reads is stored to its buffer first."""
        if s.form.lanes32:
            return self.requantize64_mve(s, depth, multiplier, shift, offset, t)
        vector, eight = self.vector(s.acc), self.vector(s.acc) and self.lookup(s.acc).size == 8
        vectorized = s.form.narrow or s.form.shifted
        if vector and not (vectorized and self.bounds(s.pixels) == (1, 1)):
            self.lines.append("#if VMCU_MVE")
            self.line(depth, f"vmcu_store8_mve({s.acc}, {s.acc}_e, {s.acc}_o);" if eight
                      else f"vst1q_s32({s.acc}, {s.acc}_v);")
            self.lines.append("#endif")
            return False
        if not vectorized:
            return False
        form = "1" if s.form.shifted else "0"
        constants = self.lane_constants(s, multiplier, shift, offset)
        acc, dst = plus(s.acc, paren(s.acc_index.c())), plus(s.dst, paren(self.at(s.dst, s.dst_index)))
        if vector:
            lanes = f"{s.acc}_e, {s.acc}_o" if eight else f"{s.acc}_v"
            code = [f"vmcu_requantize{8 if eight else 4}_mve({lanes}, {constants}, {dst}, {s.count.c()}, {form});"]
        elif self.bounds(s.acc_stride) == (4, 4) and self.bounds(s.count)[1] <= 4:
            pixels = self.bounds(s.pixels)
            code = [f"for (int32_t {t} = 0; {t} < {pixels[1] if pixels[0] == pixels[1] else paren(s.pixels.c())}; "
                    f"++{t}) {{",
                    f"vmcu_requantize_row4_mve({acc} + 4 * {t}, {constants}, "
                    f"{dst} + {t} * {paren(s.dst_stride.c())}, {s.count.c()}, {form});", "}"]
        elif (self.bounds(s.pixels)[1] == 2 and self.bounds(s.count)[1] == 2 and self.bounds(s.acc_stride) == (2, 2)
              and isinstance(s.dst_stride, Const)):
            whole = [f"{e.c()} == 2" for e in (s.count, s.pixels) if self.bounds(e) != (2, 2)]
            self.vector_if_whole(depth, whole,
                                 f"vmcu_requantize2x2_mve({acc}, {constants}, {dst}, {s.dst_stride.c()}, {form});")
            return False
        else:
            return False
        self.lines.append("#if VMCU_MVE")
        self.code(depth, code)
        self.lines.append("#else")
        return True

    def requantize64_mve(self, s: Requantize, depth: int, multiplier: str, shift: str, offset: str, t: str) -> bool:
        """Helium's four-lane form of a wide Requantize whose values fit int32 lanes (`requant.wide_lanes`),
        as requantize_mve writes the narrow one: each pixel's four channels of a GEMM's tile
        (vmcu_requantize64_row4_mve, the scalar loop under #else: True), or a whole 2x2 tile of a
        convolution's channel pair (vmcu_requantize64_2x2_mve), or of its one channel (_2x1_mve): `if
        (whole) {vector} else` falls through to the scalar loop for the tile that is not whole: False."""
        if self.vector(s.acc) or self.lookup(s.acc).ctype != "int64_t":
            return False
        constants = self.lane_constants(s, multiplier, shift, offset)
        acc, dst = plus(s.acc, paren(s.acc_index.c())), plus(s.dst, paren(self.at(s.dst, s.dst_index)))
        if self.bounds(s.acc_stride) == (4, 4) and self.bounds(s.count)[1] <= 4:
            lo, hi = self.bounds(s.pixels)
            self.lines.append("#if VMCU_MVE")
            self.code(depth, [
                f"for (int32_t {t} = 0; {t} < {hi if lo == hi else paren(s.pixels.c())}; ++{t}) {{",
                f"vmcu_requantize64_row4_mve({acc} + 4 * {t}, {constants}, {dst} + {t} * {paren(s.dst_stride.c())}, "
                f"{s.count.c()});", "}"])
            self.lines.append("#else")
            return True
        count = self.bounds(s.count)
        if (self.bounds(s.pixels)[1] == 2 and count[1] <= 2 and self.bounds(s.acc_stride) == (2, 2)
                and isinstance(s.dst_stride, Const) and (count[1] == 2 or count[0] == 1)):
            whole = [f"{e.c()} == 2" for e in (s.count, s.pixels) if self.bounds(e)[0] != 2 and self.bounds(e)[1] == 2]
            tile = "2x2" if count[1] == 2 else "2x1"  # a channel pair, or a layer's one channel
            self.vector_if_whole(depth, whole, f"vmcu_requantize64_{tile}_mve({acc}, {constants}, {dst}, "
                                               f"{s.dst_stride.c()});")
        return False

    def lane_constants(self, s: Requantize, multiplier: str, shift: str, offset: str) -> str:
        """The C arguments a vector requantization takes after its values: the tables from the
        Requantize's first channel on, the output offset and the clamp's bounds."""
        channel = paren(s.channel.c())
        return f"{plus(multiplier, channel)}, {plus(shift, channel)}, {offset}, {self.clamp_bounds(s)}"

    def vector_if_whole(self, depth: int, whole: list[str], call: str) -> None:
        """`if (whole) {call} else` under VMCU_MVE, before the scalar loop, which then runs only for a
        tile that is not whole (`whole`: the C tests that it is; none: always)."""
        self.lines.append("#if VMCU_MVE")
        self.code(depth, [f"if ({' && '.join(whole) or '1'}) {{", call, "} else"])
        self.lines.append("#endif")


def _accumulators(statement) -> tuple:
    """The accumulator buffers a statement adds to or reads (a pair's or a triple's each)."""
    return tuple(getattr(statement, field, None) for field in ("acc", "acc1", "acc2"))


def lane_accumulator(alloc: RegAlloc, rest) -> bool:
    """Whether the buffer `alloc` declares is a DotLanes accumulator of four or eight int32 lanes that
    only InitBias, DotLanes and Requantize touch in the statements after it (`rest`), or one of a
    pixel pair's groups that DotLanesPair adds to as well, all of its lanes at once: on Helium it
    lives in vector registers (eight lanes: the even and the odd channels), stored to the buffer only
    where a scalar statement reads it. Not over a lane-ordered filter (the DSP tuning's: its C runs
    the DSP path on a Helium core too)."""
    if alloc.ctype != "int32_t" or alloc.size not in (4, 8):
        return False
    users = [p.stmt for p in walk(rest) if alloc.name in _accumulators(p.stmt)]
    kinds = (DotLanes, InitBias, Requantize, DotLanesPair)
    return (any(isinstance(u, (DotLanes, DotLanesPair)) for u in users) and all(isinstance(u, kinds) for u in users)
            and all(u.half is None for u in users if isinstance(u, DotLanesPair))
            and not any(getattr(u, "lane_order", False) for u in users))


def wide_lanes(alloc: RegAlloc, rest, scope: dict[str, tuple[int, int]]) -> bool:
    """Whether the buffer `alloc` declares is four int64 lanes of a 16x8 depthwise layer that only
    InitBias, DotLanes (one product per lane each) and Requantize touch in `rest`, with at most
    PARTIAL_PRODUCTS DotLanes between two Requantizes (every iteration of the loops around them
    counted): on Helium the products are summed exactly in a vector of int32 lanes, which each
    Requantize adds to the int64 lanes (the same sums as TFLite's int64 accumulation)."""
    if alloc.ctype != "int64_t" or alloc.size != 4:
        return False
    users = [p for p in walk(rest) if alloc.name in _accumulators(p.stmt)]
    if not any(isinstance(u.stmt, DotLanes) for u in users) or any(
            not isinstance(u.stmt, (DotLanes, InitBias, Requantize)) or getattr(u.stmt, "acc1", None) is not None
            for u in users):
        return False
    if any(isinstance(u.stmt, InitBias) and ((u.stmt.width or 4) != 4 or u.stmt.acc_index != Const(0)) for u in users):
        return False  # an InitBias of some lanes would have to keep the other lanes' partial sums
    products = 0
    for placed in users:
        if not isinstance(placed.stmt, DotLanes):
            continue
        trips, inner = 1, dict(scope)
        for loop in placed.loops:
            least, greatest_value = loop_range(loop, inner)
            inner[loop.var] = (least, greatest_value)
            trips *= max(0, (greatest_value - least) // loop.step + 1)
        products += trips
    return products <= PARTIAL_PRODUCTS
