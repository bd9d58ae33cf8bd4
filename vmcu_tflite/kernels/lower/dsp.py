"""The Cortex-M DSP lowering: the portable C with the DSP extension's forms under #if.

`DspLowering` extends the shared core (`core.py`) where the DSP extension has a form of its own:
SIMD words of four int8 lanes (vmcu_mac4_s8, vmcu_mac2x2_row_s8) and the input offset broadcast into
both halves of a word, under VMCU_DSP; and the GEMM assembly (csrc/src/conv/vmcu_dot_dsp.c), under
VMCU_DOT_RUN. The dot-product helpers themselves (vmcu_dsp.h) pick SMLAD / SMLABB inside.

The GEMM assembly. A GEMM's loop over its channel groups (`gemm.py`), or a chain's 1x1 layer's over
channel pairs (`chain.py`), becomes one call of an assembly loop over channel pairs for the tiles of
two pixels (`gemm_run`), under VMCU_DOT_RUN, the loop itself following for the rest. The assembly
reads the two pixels' widened inputs interleaved by groups of four (`vmcu_widen_s8_pair`), so a tile
is widened that way only where every dot product over it is the assembly's: the generator's first
pass finds those tiles (`paired_tiles`), the second widens them so. Where the tile's outputs are
stored whole right after the loop, the assembly writes them into the pool itself (`direct_stores`).
A tile of one pixel (a GEMM's last) takes the assembly's one-pixel loop (`lone_call`), a chain row's last
three pixels its three-pixel loop (`triple_run`). Each loop has a form per layout of the weight rows
(`rows_form`): int8 rows, int16 rows (`w`), int8 rows interleaved in pairs (`p`).
"""
from __future__ import annotations

import numpy as np

from ..c_text import greatest, paren, plus
from ..index import Const, Ix, Sum, Var, loop_bounds, simplify, substitute
from ..ir import (Accumulate, Broadcast, Dot, DotLanes, DotLanesPair, FlashLoad, InitBias, Loop, RAMFree, RAMStore,
                  RegAlloc, Requantize, Widen)
from ..schedule import enter, loop_range, values, walk
from .core import CoreLowering
from .dots import Lanes

UNROLLED_ROWS = (8, 16, 24, 32, 40, 48, 64, 80, 96)  # GEMM rows vmcu_gemm2x2_k<len>_narrow_b*_run take unrolled
# and the int16 rows' forms (vmcu_gemm2x2w_k<len>_...) these too: gathered stems' windows padded to whole
# words (3x3 over one channel: 12; 3x3 over three: 28; 5x5 over one: 28)
INT16_ROWS = (12, 20, 28, 36)


class DspLowering(CoreLowering):
    """The portable lowering with the Cortex-M DSP forms: SIMD words under VMCU_DSP, the GEMM
    assembly under VMCU_DOT_RUN."""

    def isa_state(self, first: CoreLowering | None) -> None:
        super().isa_state(first)
        self.gemm_state(first.paired_tiles() if first is not None else frozenset())

    def gemm_state(self, paired: frozenset[int]) -> None:
        """`paired`: the widened tiles of two pixels (by serial) the first pass found read only by
        the assembly (`paired_tiles`), empty in the first pass."""
        self.paired = paired
        # two-pixel Widen loops: buffer serial -> (pixels, stride, in order: for int16 weights)
        self.pair_widens: dict[int, tuple[Ix, int, bool]] = {}
        self.assembly_reads: set[int] = set()  # widened tiles (by serial) a gemm_run reads
        self.other_reads: set[int] = set()  # widened tiles (by serial) a Dot reads outside a gemm_run's fallback
        self.fallback: int | None = None  # the tile whose gemm_run the loop being lowered is the fallback of
        self.store_guards: dict[int, str] = {}  # store loops (by id) a gemm_run may have done: its pointer's name
        self.widen_orders: dict[int, set[bool]] = {}  # widened buffers (by serial) -> their Widens' `natural`

    # -- statements: the DSP forms before the portable ones ----------------------------------------

    def lower_Loop(self, s: Loop, depth: int) -> None:
        """A loop, after the GEMM assembly's call that may run it (`gemm_run`) and the interleaved
        widening of the tile it reads (`lower_pair_widen`); a loop storing what the assembly may
        have stored itself (`direct_stores`) under a test of its pointer."""
        if isinstance(s.lo, Const) and isinstance(s.hi, Const) and s.lo.value >= s.hi.value:
            return  # runs no iteration (in the interior, the edge taps only one pixel of a pair has)
        guard = self.store_guards.pop(id(s), None)
        if guard is not None:
            self.line(depth, f"if ({guard} == 0) {{ /* else the assembly stored them */")
            self.lower_Loop(s, depth + 1)
            self.line(depth, "}")
            return
        self.lower_pair_widen(s, depth)
        fallback = self.fallback
        tile = self.gemm_run(s, depth)
        if tile is not None:
            self.fallback = tile
        elif not self.triple_run(s, depth):
            self.lone_run(s, depth)
        super().lower_Loop(s, depth)
        self.fallback = fallback

    def lower_Widen(self, s: Widen, depth: int) -> None:
        """The widening, its order noted for the tile of one pixel's assembly (`lone_run`)."""
        self.widen_orders.setdefault(self.lookup(s.dst).serial, set()).add(s.natural)
        super().lower_Widen(s, depth)

    def dot_widened(self, s: Dot, xs: list[str], ws: list[str], depth: int) -> None:
        """A Dot over a widened tile, noted as a read outside the assembly unless it is the fallback
        loop of the tile's `gemm_run` (`paired_tiles`)."""
        pointer = self.lookup(s.x)
        if pointer.serial != self.fallback:
            self.other_reads.add(pointer.serial)
        super().dot_widened(s, xs, ws, depth)

    def broadcast_word(self, s: Broadcast, depth: int) -> None:
        """The offset in both halves of a word (vmcu_broadcast16) for the SIMD additions of the DSP path."""
        self.lines.append("#if VMCU_DSP")
        self.line(depth, f"const uint32_t {s.name} = vmcu_broadcast16((int32_t)({s.value}));")
        self.lines.append("#else")
        super().broadcast_word(s, depth)
        self.lines.append("#endif")

    def lower_Accumulate(self, s: Accumulate, depth: int) -> None:
        """acc[k] += src[k]: four int8 values per word on the DSP path (vmcu_accumulate_s8_dsp, one SXTAB
        each); int16 values (a 16x8 chain's) one at a time on every core."""
        if self.lookup(s.src) is not None and self.lookup(s.src).ctype == "int16_t":
            super().lower_Accumulate(s, depth)
            return
        self.ref(s.acc)
        self.lines.append("#if VMCU_DSP")
        self.line(depth, f"vmcu_accumulate_s8_dsp({s.acc}, {plus(s.src, paren(self.at(s.src, s.src_index)))}, "
                         f"{s.count.c()});")
        self.lines.append("#else")
        super().lower_Accumulate(s, depth)
        self.lines.append("#endif")

    def dot_lanes_code(self, s: DotLanes, lanes: Lanes, depth: int) -> None:
        """Four lanes per DSP word (vmcu_mac4_s8) where the group is full, else the scalar loop."""
        x, taps, lo, hi = lanes.x, lanes.taps, lanes.lo, lanes.hi
        if hi in (4, 8):  # four lanes per DSP word
            self.lines.append("#if VMCU_DSP")
            grouped = self.group_test(s.w_index) if s.lane_order else ""
            self.line(depth, f"if ({_all_of('1' if lo == hi else f'{s.lanes.c()} == {hi}', grouped)}) {{")
            for at in ("", " + 4")[:hi // 4]:
                weights = f"{taps}{at}" if s.lane_order else f"vmcu_load32({taps}{at})"
                self.line(depth + 1, f"vmcu_mac4{'_lanes16' if s.lane_order else '_s8'}(vmcu_load32({x}{at}), "
                                     f"{weights}, {s.offsets}, {s.acc}{at});")
            self.line(depth, "} else")
            self.lines.append("#endif")
        super().dot_lanes_code(s, lanes, depth)

    def lanes_pair_word(self, s: DotLanesPair, depth: int, x: str, w: str, taps: str, x_step: str, w_step: str,
                        lo: int) -> None:
        """vmcu_mac2x2_row_s8 on the DSP path for a full group (both lanes of each half), a group of
        eight as its two words of four; a triple's half group by vmcu_mac3x2_row_s8, at a stride of 2 as
        two calls, its even taps then its odd ones (each over every other column: the windows' shift of
        two columns is one column of those)."""
        full = 8 if self.bounds(s.lanes)[1] > 4 else 4
        if s.acc2 is not None and (full != 4 or s.shift not in (1, 2) or s.half is None):
            raise ValueError(f"kernel {self.kernel.name}: a DotLanesPair of three pixels takes half a group of four "
                             "at a stride of 1 or 2")
        grouped = self.group_test(s.w_index) if s.lane_order else ""
        self.lines.append("#if VMCU_DSP")
        self.line(depth, f"if ({_all_of('1' if lo == full else f'{s.lanes.c()} == {full}', grouped)}) {{")
        form = "lanes16" if s.lane_order else "s8"
        for word in range(0, full, 4):
            at = "" if word == 0 else f" + {word}"
            for half in (0, 1) if s.half is None else (s.half,):
                if s.acc2 is not None:
                    self.ref(s.acc2)
                    passes = ([(x, w, taps, x_step, w_step)] if s.shift == 1 else
                              [(x, w, f"({taps} + 1) / 2", f"2 * {x_step}", f"2 * {w_step}"),
                               (f"{x} + {x_step}", f"{w} + {w_step}", f"{taps} / 2", f"2 * {x_step}", f"2 * {w_step}")])
                    for x_at, w_at, count, xs, ws in passes:
                        self.line(depth + 1, f"vmcu_mac3x2_row_{form}({x_at}, {w_at}, {count}, {xs}, {ws}, "
                                             f"{s.offsets}, {half}, {s.acc}, {s.acc1}, {s.acc2});")
                    continue
                self.line(depth + 1, f"vmcu_mac2x2_row_{form}({x}{at}, {w}{at}, {taps}, {s.shift}, {x_step}, "
                                     f"{w_step}, {s.offsets}, {half}, {s.acc}{at}, {s.acc1}{at});")
        self.line(depth, "} else")
        self.lines.append("#endif")

    # -- the GEMM assembly -------------------------------------------------------------------------

    def paired_tiles(self) -> frozenset[int]:
        """After a pass: the widened tiles of two pixels whose every Dot is a gemm_run's (or its
        fallback's, which runs only without the second pixel): those the next pass widens
        interleaved (vmcu_widen_s8_pair) and hands to the assembly."""
        return frozenset(self.assembly_reads - self.other_reads)

    def pair_widen(self, s: Loop) -> tuple[Widen, int] | None:
        """The Widen and its pixels' distance of a loop widening a tile of up to two pixels whole
        (`for t < pixels: Widen(dst + t * L, src + t * length, length)`, length = L, a multiple of 4),
        else None."""
        if not (len(s.body) == 1 and isinstance(s.body[0], Widen) and s.lo == Const(0) and s.step == 1
                and self.bounds(s.hi)[1] == 2):
            return None
        w, t = s.body[0], s.var
        stride = [int(w.dst_index.evaluate({t: v})) for v in (0, 1)]
        length = self.bounds(w.length)
        if stride[0] != 0 or length != (stride[1], stride[1]) or stride[1] % 4 \
                or self.bounds(substitute(w.src_index, t, 1) - substitute(w.src_index, t, 0)) != length:
            return None
        return w, stride[1]

    def lower_pair_widen(self, s: Loop, depth: int) -> None:
        """Where the tile is `paired`: both pixels widened at once, interleaved, for the assembly
        (under VMCU_DOT_RUN, when the tile has its second pixel; in order within each group of four
        for int16 weights, `vmcu_widen_s8_pair_natural`); the loop follows for the rest."""
        found = self.pair_widen(s)
        if found is None:
            return
        w, stride = found
        serial = self.lookup(w.dst).serial
        self.pair_widens[serial] = (s.hi, stride, w.natural)
        if serial not in self.paired:
            return
        x0, x1 = (plus(w.src, paren(self.at(w.src, simplify(substitute(w.src_index, s.var, t), self.ranges))))
                  for t in (0, 1))
        both = "1" if self.bounds(s.hi) == (2, 2) else f"{paren(s.hi.c())} == 2"
        self.ref(w.dst)
        self.ref(w.offsets)
        self.lines.append("#if VMCU_DOT_RUN")
        widen = "vmcu_widen_s8_pair_natural" if w.natural else "vmcu_widen_s8_pair"
        self.code(depth, [f"if ({both}) {{", f"{widen}({w.dst}, {x0}, {x1}, {stride}, {w.offsets});",
                          "} else"])
        self.lines.append("#endif")

    def gemm_run(self, s: Loop, depth: int) -> int | None:
        """A GEMM's loop over its channel groups as one call of the runtime's assembly loop over
        channel pairs (vmcu_gemm2x2_narrow_b16_run / _b32_run, or vmcu_gemm2x2_k<len>_... for the
        unrolled rows: vmcu_dsp.h) for the tiles of two pixels, where the DSP assembly is built;
        the loop itself follows for the rest. The accumulators then stay in registers from bias to
        byte. The assembly reads both pixels' inputs interleaved: it takes a tile only where a
        pair_widen loop widened it for the same pixels, and only in the pass that widens it so
        (`paired`). Returns the tile's serial where the loop is the assembly's (in either pass),
        else None (and emits nothing)."""
        parts = self.gemm_groups(s)
        if parts is None:
            return None
        dot, requant, rows, bias, unrolled = parts
        tile = self.lookup(dot.x).serial
        widened = self.pair_widens.get(tile)
        int16 = rows[0].ctype == "int16_t"  # weights widened at conversion meet inputs widened in order
        if widened is None or widened[0] != dot.pixels or self.bounds(dot.x_index) != (0, 0) \
                or self.bounds(dot.x_stride) != (widened[1], widened[1]) or widened[2] != int16:
            return None
        self.assembly_reads.add(tile)
        if tile not in self.paired:
            return tile
        u, length = s.var, self.bounds(dot.length)[0]
        multiplier, shift, offset, w0, channel, out, table, both = self.gemm_operands(dot, requant, rows, bias)
        x = self.ref(dot.x)
        run = (f"vmcu_gemm2x2{self.rows_form(dot, rows)}_{f'k{length}_' if unrolled else ''}"
               f"narrow_b{16 if bias.ctype == 'int16_t' else 32}_run")
        direct = self.direct_stores(s, dot, requant)
        into = []
        if direct is not None:
            stores, base, size = direct
            name = self.fresh(f"{requant.dst}_pool")
            self.taken.add(name)
            self.store_guards[id(stores)] = name
            self.line(depth, f"int8_t *{name} = 0; /* where the assembly stores the tile's outputs itself */")
            into = [f"{name} = vmcu_span_out({self.view('output')}, {self.u32_offset('output', base)}, {size}u);"]
            out = f"{name} != 0 ? {name} : {out}"
        self.lines.append("#if VMCU_DOT_RUN")
        self.code(depth, [
            f"if ({both}) {{",
            *into,
            f"const int32_t {u} = {s.lo.c()};",
            f"const vmcu_gemm_tile tile = {{{x}, {w0}, {length}, {table} + {channel}, "
            f"{multiplier} + {channel}, {shift} + {channel}, 2 * {offset} + 1, {out}, "
            f"{paren(requant.dst_stride.c())}, ({paren(s.hi.c())} - {u}) / 2}};",
            f"{run}(&tile);",
            "} else"])
        if self.bounds(dot.pixels)[0] <= 1:  # the last tile may have one pixel, widened by the loop
            self.code(depth, [f"if ({paren(dot.pixels.c())} == 1) {{",
                              *self.lone_call(s, dot, requant, rows, bias, unrolled), "} else"])
        self.lines.append("#endif")
        return tile

    def lone_run(self, s: Loop, depth: int) -> None:
        """A GEMM's loop over channel groups for a tile of one pixel alone (a chain row's last of an
        odd count) as one call of the assembly's one-pixel loop (`lone_call`), where the loop's
        Widen left the pixel's inputs in the order the rows need: SXTB16's, or in order for int16
        rows. The loop follows for the cores without the assembly."""
        parts = self.gemm_groups(s, pixels=1)
        if parts is None:
            return
        dot, requant, rows, bias, unrolled = parts
        order = {rows[0].ctype == "int16_t"}
        if self.widen_orders.get(self.lookup(dot.x).serial) != order or self.bounds(dot.x_index) != (0, 0):
            return
        self.lines.append("#if VMCU_DOT_RUN")
        self.code(depth, ["if (1) {", *self.lone_call(s, dot, requant, rows, bias, unrolled), "} else"])
        self.lines.append("#endif")

    def triple_run(self, s: Loop, depth: int) -> bool:
        """A chain layer's loop over channel pairs (a 1x1 layer's, or a 1x1 or gathered head's) for a
        row's last tile of three pixels (`chain._ends_in_three`) as one call of the assembly's
        three-pixel loop (vmcu_gemm3x2[w]_k<len>_narrow_b*_run: each weight word loaded once for the
        three), where the loop's Widen left the pixels' inputs one row apart in the order the rows
        need (SXTB16's, or in order for int16 rows); whether it did. The loop follows for the cores
        without the assembly."""
        parts = self.gemm_groups(s, pixels=3)
        if parts is None:
            return False
        dot, requant, rows, bias, unrolled = parts
        int16 = rows[0].ctype == "int16_t"
        if (not unrolled or self.bounds(dot.pixels) != (3, 3) or self.bounds(dot.x_index) != (0, 0)
                or self.widen_orders.get(self.lookup(dot.x).serial) != {int16}):
            return False
        length = self.bounds(dot.length)[0]
        run = (f"vmcu_gemm3x2{self.rows_form(dot, rows)}_k{length}_narrow_b{16 if bias.ctype == 'int16_t' else 32}"
               "_run")
        self.lines.append("#if VMCU_DOT_RUN")
        self.code(depth, ["if (1) {", *self.tile_call(s, dot, requant, rows, bias, run,
                                                      paren(requant.dst_stride.c())), "} else"])
        self.lines.append("#endif")
        return True

    def lone_call(self, s: Loop, dot: Dot, requant: Requantize, rows: list[FlashLoad], bias: InitBias,
                  unrolled: bool) -> list[str]:
        """The C lines calling the assembly's loop over the channel pairs of a tile of one pixel
        (vmcu_gemm1x2[w][_k<len>]_narrow_b*_run): 11 instructions per group of four (7 over int16
        rows) and both values requantized in registers, where the C loop calls a row helper per
        group. The pixel's inputs are its widened row at the tile's start."""
        length = self.bounds(dot.length)[0]
        run = (f"vmcu_gemm1x2{self.rows_form(dot, rows)}_{f'k{length}_' if unrolled else ''}"
               f"narrow_b{16 if bias.ctype == 'int16_t' else 32}_run")
        return self.tile_call(s, dot, requant, rows, bias, run, "0")

    @staticmethod
    def rows_form(dot: Dot, rows: list[FlashLoad]) -> str:
        """The letter of the assembly's forms for the GEMM's weight rows: `w` int16 rows (widened at
        conversion), `p` int8 rows interleaved in pairs (paired_weights.py), none for plain int8 rows."""
        return "w" if rows[0].ctype == "int16_t" else "p" if dot.paired else ""

    def tile_call(self, s: Loop, dot: Dot, requant: Requantize, rows: list[FlashLoad], bias: InitBias, run: str,
                  out_stride: str) -> list[str]:
        """The C lines calling the assembly loop `run` over the channel pairs of the loop `s` (a tile of
        one pixel's or of three's): its first channel, the tile's operands, `out_stride` between its
        pixels' outputs ("0" for one pixel: not read)."""
        u, length = s.var, self.bounds(dot.length)[0]
        multiplier, shift, offset, w0, channel, out, table, _ = self.gemm_operands(dot, requant, rows, bias)
        return [f"const int32_t {u} = {s.lo.c()};",
                f"const vmcu_gemm_tile tile = {{{self.ref(dot.x)}, {w0}, {length}, {table} + {channel}, "
                f"{multiplier} + {channel}, {shift} + {channel}, 2 * {offset} + 1, {out}, {out_stride}, "
                f"({paren(s.hi.c())} - {u}) / 2}};",
                f"{run}(&tile);"]

    def gemm_operands(self, dot: Dot, requant: Requantize, rows: list[FlashLoad],
                      bias: InitBias) -> tuple[str, str, str, str, str, str, str, str]:
        """The C operands of a GEMM loop's call, in either instruction set's tile (`gemm_shape`'s
        parts): the multiplier and shift tables, the output offset, the first row, the first
        channel, the first output's address, the bias table, and the test that the tile has both
        pixels."""
        quant = paren(requant.quant)
        multiplier = self.param(f"{quant}->requant.multiplier", "int32_t *")
        shift = self.param(f"{quant}->requant.shift", "int8_t *")
        offset = self.param(f"{quant}->output_offset", "int32_t")
        w0 = paren(plus(self.param(rows[0].array, f"{rows[0].ctype} *"), paren(rows[0].offset.c())))
        channel = paren(requant.channel.c())
        out = f"&{requant.dst}[{paren(self.at(requant.dst, requant.dst_index))}]"
        table = self.param(bias.bias, f"{bias.ctype} *")
        both = "1" if self.bounds(dot.pixels) == (2, 2) else f"{paren(dot.pixels.c())} == 2"
        return multiplier, shift, offset, w0, channel, out, table, both

    def direct_stores(self, s: Loop, dot: Dot, requant: Requantize) -> tuple[Loop, Ix, int] | None:
        """Where the statement after a GEMM's channel loop `s` is the loop that stores its outputs
        buffer, whole rows of a two-pixel tile, each at its row of the output (a tile computing all
        its units at once, `gemm.py`): that loop, the tile's output offset and its bytes. The
        assembly can then write the outputs straight into the pool where those bytes do not cross
        its end, the stores skipped: the same bytes at the same addresses, with no pool access
        between (its inputs are a widened copy). Else None."""
        body = self.bodies_open[-1]
        at = next(k for k, t in enumerate(body) if t is s)
        after = body[at + 1] if at + 1 < len(body) else None
        if not isinstance(after, Loop) or self.bounds(s.lo) != (0, 0):
            return None
        placed = list(walk([after]))
        stores = [p for p in placed if isinstance(p.stmt, RAMStore)]
        units, apart = self.bounds(s.hi)[1], requant.dst_index - Var(s.var)  # unit u at u in the buffer
        if (len(stores) != 1 or any(not isinstance(p.stmt, (Loop, RAMFree, RAMStore)) for p in placed)
                or self.bounds(s.hi) != (units, units) or self.bounds(requant.dst_stride) != (units, units)
                or apart.variables() or self.bounds(apart) != (0, 0)):
            return None
        store = stores[0].stmt
        base = store.offset - store.src_index  # the output offset of the buffer's byte 0
        if (store.tensor != "output" or store.src != requant.dst or not self.own_buffer(store.src)
                or base.variables() & {loop.var for loop in stores[0].loops}):
            return None
        env = {v: np.array([lo], np.int64) for v, (lo, _) in self.ranges.items()}
        env["__count__"] = np.int64(1)
        if int(values(dot.pixels, env)[0]) != 2:
            return None
        for loop in stores[0].loops:  # the store's instances in the first tile
            env, _ = enter(loop, env)
        first, length = values(store.src_index, env), values(store.length, env)
        covered = np.zeros(2 * units, np.int64)
        for a, n in zip(first.tolist(), length.tolist()):
            covered[max(a, 0):a + n] += 1
        if first.min(initial=0) < 0 or (first + length).max(initial=0) > 2 * units or (covered != 1).any():
            return None
        return after, base, 2 * units

    def gemm_groups(self, s: Loop, pixels: int = 2) -> tuple[Dot, Requantize, list[FlashLoad], InitBias, bool] | None:
        """The Dot, Requantize, row pointers and first InitBias of a GEMM's loop over groups of
        channels (`gemm_shape`) that the assembly takes: up to `pixels` pixels of widened inputs a
        multiple of 8 and 16 or more long (`len`) and a requantization saturating to int8; and
        whether the rows take the unrolled form (`UNROLLED_ROWS`), which also takes 8 inputs and 8
        channels, and is the only one for int16 weights (`vmcu_gemm2x2w_k<len>_...`, which also takes
        the lengths of `INT16_ROWS`). Else None."""
        parts = self.gemm_shape(s, pixels)
        if parts is None:
            return None
        dot, requant, rows, bias, length = parts
        x = self.lookup(dot.x)
        if x.ctype != "int16_t" or x.run_stride is not None or not requant.form.saturate:
            return None  # int16 rows (a gathered stem's) meet inputs widened in order, not SXTB16's
        int16 = rows[0].ctype == "int16_t"
        unrolled = length in UNROLLED_ROWS or (int16 and length in INT16_ROWS)
        if (int16 and not unrolled) or length % (4 if unrolled else 8):
            return None
        shortest = 8 if unrolled else 16  # below: GCC's unrolled loop is cheaper than the call
        if length < shortest or loop_bounds(s.hi - s.lo, self.loops, self.ranges)[0] < shortest:
            return None
        return dot, requant, rows, bias, unrolled

    def gemm_shape(self, s: Loop, pixels: int = 2) -> tuple[Dot, Requantize, list[FlashLoad], InitBias, int] | None:
        """The Dot, Requantize, row pointers, first InitBias and row length of a GEMM's loop over
        groups of four channels (`gemm.py`), or of a chain's 1x1 layer over channel pairs
        (`chain.py`), whose every group is full: up to `pixels` pixels (two, or one: `lone_run`), int8
        weight rows `length` bytes apart (or paired, 4 apart from an even channel), the pixels' inputs
        `length` apart, a narrow requantization. Else None."""
        body = s.body
        if s.step not in (2, 4) or len(body) < 4 or not isinstance(body[0], RegAlloc):
            return None
        rows = [b for b in body if isinstance(b, FlashLoad) and not b.into]
        biases = [b for b in body if isinstance(b, InitBias)]
        dot, requant = body[-2], body[-1]
        if not (isinstance(dot, Dot) and isinstance(requant, Requantize) and len(body) == 3 + len(rows) + len(biases)
                and len(rows) == len(dot.weights) == s.step and requant.acc == dot.acc == body[0].name
                and requant.acc1 is None and requant.form.narrow
                and requant.pixels == dot.pixels and len({b.ctype for b in biases}) == 1
                and all(b.channel == requant.channel and b.width == s.step for b in biases)):
            return None
        if self.lookup(dot.x) is None or self.bounds(dot.pixels)[1] != pixels \
                or len({r.ctype for r in rows}) != 1 or rows[0].ctype not in ("int8_t", "int16_t"):
            return None
        ranges = {**self.ranges, s.var: loop_range(s, self.ranges)}
        loops = (*self.loops, (s.var, s.lo, greatest(s)))
        wanted = {dot.count: s.step, requant.count: s.step, requant.acc_stride: s.step, dot.acc_index: 0,
                  requant.acc_index: 0}
        if any(loop_bounds(e, loops, ranges) != (v, v) for e, v in wanted.items()):
            return None
        length = loop_bounds(dot.length, loops, ranges)
        if length[0] != length[1]:
            return None
        # The groups are full (above), so the rows' offsets min(u + k, units - 1) * window step by
        # the window at every u: their distance at the loop's first u is the distance at all.
        # Paired rows (paired_weights.py) are 4 bytes apart from an even channel on: the loop's every u.
        first = {v: ranges[v][0] for v in (rows[1].offset - rows[0].offset).variables()}
        row_step = int((rows[1].offset - rows[0].offset).evaluate(first))
        if row_step != (4 if dot.paired else length[0]) or (dot.paired and not _even(s.lo)) \
                or loop_bounds(dot.x_stride, loops, ranges) != length:
            return None  # the assembly's rows are len apart (or paired), its two pixels' inputs len apart
        return dot, requant, rows, biases[0], length[0]


def _even(e: Ix) -> bool:
    """Whether `e` is even for every value of its variables: a constant, or a sum of even multiples."""
    if isinstance(e, Const):
        return e.value % 2 == 0
    return isinstance(e, Sum) and e.const % 2 == 0 and all(coef % 2 == 0 for coef, _ in e.parts)


def _all_of(test: str, more: str) -> str:
    """The C condition `test` and `more` ("" adds nothing)."""
    return test if not more else more if test == "1" else f"{test} && {more}"
