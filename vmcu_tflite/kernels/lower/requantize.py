"""Biases and requantization: InitBias, Requantize (one buffer or a depthwise pair), in portable form.

TFLite's requantization of each value in the cheapest form the layer's constants allow (`requant.py`:
narrow, shifted, general or 64-bit), each channel's constants read into locals where its pixels or
pixel pair share them. An instruction set that keeps accumulators in vector registers (`vector`,
`partial`) extends `before_bias`, `bias_loop`, `before_requantize` and `requantize_vectors` with its
own form under #if.

A mixin of `core.CoreLowering`, whose scope and operand helpers it uses.
"""
from __future__ import annotations

from ..c_text import paren
from ..index import Const, Ix
from ..ir import InitBias, Requantize
from .names import index_sum


class RequantizeStatements:
    """The lowering of InitBias and Requantize."""

    def lower_InitBias(self, s: InitBias, depth: int) -> None:
        """Every element of the accumulator buffer, those past `count` to 0: a loop of constant
        trip count, so that the compiler sees the whole buffer initialized (no -Wmaybe-uninitialized)."""
        k = self.fresh("k")
        bias = self.param(s.bias, f"{s.ctype} *")
        self.ref(s.acc)
        self.before_bias(s, depth)
        width = s.width or self.lookup(s.acc).size
        lo, hi = self.bounds(s.count)
        if width < hi or self.bounds(s.acc_index)[1] + width > self.lookup(s.acc).size:
            raise ValueError(f"kernel {self.kernel.name}: InitBias of up to {hi} values into "
                             f"{s.acc}[{self.lookup(s.acc).size}]")
        if width == 1 and lo >= 1:  # one channel: its bias read once where the channel is fixed
            kind = "int64_t" if s.ctype == "int64_t" else "int32_t"
            self.line(depth, f"{s.acc}[{s.acc_index.c()}] = {self.invariant(bias, kind, s.channel)};")
            return
        self.bias_loop(s, depth, bias, k, width, lo)

    def before_bias(self, s: InitBias, depth: int) -> None:
        """What an instruction set resets before an InitBias (`partial` sums): nothing in the portable form."""

    def bias_loop(self, s: InitBias, depth: int, bias: str, k: str, width: int, lo: int) -> None:
        """The loop setting `width` accumulators from the bias table `bias` (those past `count` to 0)."""
        value = f"{bias}[{index_sum(paren(s.channel.c()), k)}]"
        self.line(depth, f"for (int32_t {k} = 0; {k} < {width}; ++{k}) {{")
        self.line(depth + 1, f"{s.acc}[{index_sum(paren(s.acc_index.c()), k)}] = "
                             f"{value if lo >= width else f'{k} < {paren(s.count.c())} ? {value} : 0'};")
        self.line(depth, "}")

    def lower_Requantize(self, s: Requantize, depth: int) -> None:
        """TFLite's requantization of each value, in the cheapest form the layer's constants allow
        (`requant.py`): the one-multiply narrow form, and a plain int8 saturation as the clamp.
        A channel's multiplier and shift are read into locals before its pixels: the int8 stores
        may alias the params, so the compiler would otherwise load them again for every pixel."""
        k, t = self.fresh("k"), self.fresh("t")
        self.before_requantize(s, depth)
        quant = paren(s.quant)
        multiplier = self.param(f"{quant}->requant.multiplier", "int32_t *")
        shift = self.param(f"{quant}->requant.shift", "int8_t *")
        offset = self.param(f"{quant}->output_offset", "int32_t")
        self.ref(s.acc)
        channel = index_sum(paren(s.channel.c()), k)
        constants = (f"{multiplier}[{channel}]", f"{shift}[{channel}]")
        one_channel = self.bounds(s.count) == (1, 1)
        if one_channel:  # its constants read once where the channel is fixed
            constants = (self.invariant(multiplier, "int32_t", s.channel), self.invariant(shift, "int32_t", s.channel))
        if s.acc1 is not None:
            self.lower_requantize_pair(s, depth, k, constants, offset, one_channel)
            return
        scalar_in_else = self.requantize_vectors(s, depth, multiplier, shift, offset, t)
        pixels_lo, pixels_hi = self.bounds(s.pixels)
        if pixels_hi > 1 and self.bounds(s.count) != (1, 1):
            lines, constants = self.channel_constants(constants)
        else:
            lines = []
        pixel = t if pixels_hi > 1 else "0"

        def strided(index: Ix, stride: Ix) -> str:
            base = index_sum(paren(index.c()), k)
            return base if pixel == "0" else f"{base} + {pixel} * {paren(stride.c())}"

        dst = f"{s.dst}[{index_sum(paren(self.at(s.dst, s.dst_index)), strided(Const(0), s.dst_stride))}]"
        store = self.requantized(s, dst, f"{s.acc}[{strided(s.acc_index, s.acc_stride)}]", constants, offset)
        if pixel != "0":
            bound = str(pixels_hi) if pixels_lo == pixels_hi else paren(s.pixels.c())
            store = [f"for (int32_t {t} = 0; {t} < {bound}; ++{t}) {{", *store, "}"]
        self.for_lanes(depth, k, s.acc, s.count, *self.bounds(s.count), s.acc_index,
                       size=self.bounds(s.acc_stride)[0] if pixels_hi > 1 else 0)
        self.code(depth + 1, lines + store)
        self.line(depth, "}")
        if scalar_in_else:
            self.lines.append("#endif")

    def before_requantize(self, s: Requantize, depth: int) -> None:
        """What an instruction set does to the accumulators before a Requantize reads them (`partial`
        sums joined): nothing in the portable form."""

    def requantize_vectors(self, s: Requantize, depth: int, multiplier: str, shift: str, offset: str, t: str) -> bool:
        """An instruction set's vector form of a Requantize, written before the scalar loop; True where
        that loop then goes under the #else it opened (the caller closes it with #endif). None in the
        portable form: False."""
        return False

    def lower_requantize_pair(self, s: Requantize, depth: int, k: str, constants: tuple[str, str], offset: str,
                              hoisted: bool) -> None:
        """A Requantize with `acc1` (a depthwise pair, or with `acc2` a triple): each channel's multiplier
        and shift read once for every pixel, which a loop over the channels per pixel would read again
        (the int8 stores between them may alias the tables); `hoisted`: `constants` are locals read
        where the one channel is fixed."""
        if s.pixels != Const(1):
            raise ValueError(f"kernel {self.kernel.name}: a Requantize of two buffers takes one pixel each")
        accs = (s.acc, s.acc1) if s.acc2 is None else (s.acc, s.acc1, s.acc2)
        for acc in accs[1:]:
            self.ref(acc)
        lines, constants = ([], constants) if hoisted else self.channel_constants(constants)
        for acc, at in zip(accs, (s.dst_index, s.dst_index + s.dst_stride, s.dst_index + 2 * s.dst_stride)):
            dst = f"{s.dst}[{index_sum(paren(self.at(s.dst, at)), k)}]"
            lines += self.requantized(s, dst, f"{acc}[{index_sum(paren(s.acc_index.c()), k)}]", constants, offset)
        self.for_lanes(depth, k, s.acc, s.count, *self.bounds(s.count), s.acc_index)
        self.code(depth + 1, lines)
        self.line(depth, "}")

    def channel_constants(self, constants: tuple[str, str]) -> tuple[list[str], tuple[str, str]]:
        """A channel's multiplier and shift read into locals once, for the several values that use
        them: the declarations, and the locals' names."""
        m, r = self.local("m"), self.local("shift")
        return [f"const int32_t {m} = {constants[0]};", f"const int32_t {r} = {constants[1]};"], (m, r)

    def requantized(self, s: Requantize, dst: str, acc: str, constants: tuple[str, str], offset: str) -> list[str]:
        """The C statement storing the accumulator `acc` requantized in the layer's form into `dst`."""
        arguments = f"{acc}, {constants[0]}, {constants[1]}"
        value = (f"vmcu_requantize64({arguments}) + {offset}" if s.form.wide
                 else f"vmcu_requantize_narrow({arguments}, {offset})" if s.form.narrow
                 else f"vmcu_requantize_shifted({arguments}, {offset})" if s.form.shifted
                 else f"vmcu_requantize({arguments}) + {offset}")
        clamp = ("vmcu_sat8(", ")") if s.form.saturate else ("vmcu_clamp(", f", {self.clamp_bounds(s)})")
        ctype = self.lookup(s.dst).ctype if self.lookup(s.dst) is not None else "int8_t"  # int16_t: a 16x8 layer's
        return [f"{dst} = ({ctype}){clamp[0]}", f"    {value}{clamp[1]};"]

    def clamp_bounds(self, s: Requantize) -> str:
        """The C arguments `act_min, act_max` of a Requantize's clamp (-128, 127: a plain saturation)."""
        if s.form.saturate:
            return "-128, 127"
        quant = paren(s.quant)
        return (f"{self.param(f'{quant}->requant.act_min', 'int32_t')}, "
                f"{self.param(f'{quant}->requant.act_max', 'int32_t')}")
