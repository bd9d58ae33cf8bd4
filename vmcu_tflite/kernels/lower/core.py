"""The shared core of the C generator: what every instruction set lowers the same way.

One pass of `lower` over a kernel description (`CoreLowering`): loops become `for` loops over int32
variables, index expressions their `c()`, and each statement the C of its portable form, calling the
runtime's inline helpers (vmcu_support.h, vmcu_dsp.h: helpers whose bodies pick the core's own
instructions under #if). Every declaration a statement makes lives in the C block of the loop body
holding the statement, so a name declared again in a nested loop shadows the outer one exactly as in
the description. Here too: the function's frame (the params fields and the step's views read once
into locals), pool addressing (ring offsets, workspaces, the runs of a strided load), values hoisted
out of the loops they do not change in.

The statements are lowered by the mixins beside this module (`pool.py`: the pool's loads and stores;
`dots.py`: the dot products; `requantize.py`: biases and requantization). An instruction set's
lowering (`dsp.py`, `helium.py`) subclasses `CoreLowering`, extending the statement methods and the
hooks named in its docstring with its own form under #if, the portable one as the #else: the
generated C carries every form, and the compiler keeps the core's.
"""
from __future__ import annotations

import re

from ..c_text import greatest, paren, plus
from ..index import Const, Ix, Sum, Var, loop_bounds, substitute
from ..ir import Accumulate, AddResidual, Average, Broadcast, FlashLoad, Kernel, Loop, RegAlloc
from ..schedule import loop_range
from .dots import DotStatements
from .names import (INDENT, PARAMETERS, SIGNATURE, Pointer, declared_names, divisors, index_sum, split_index, u32,
                    workspace_view)
from .pool import PoolStatements
from .requantize import RequantizeStatements


class CoreLowering(PoolStatements, DotStatements, RequantizeStatements):
    """One pass of the lowering of one kernel: the C of every statement in its portable form, and the
    hooks where an instruction set's lowering adds its own form under #if (`isa_state`,
    `after_statement`, `vector`, `partial`, `zero16`, `broadcast_word`, and the statement methods it
    extends)."""

    def __init__(self, kernel: Kernel, function_name: str, whole: frozenset[str],
                 first: CoreLowering | None = None) -> None:
        """`whole`: the pool roles known not to cross the end of the pool; `first`: the first pass's
        lowering of the same kernel, None in the first pass (the second reads what it found: the
        declarations (by serial) it saw read, and each instruction set's own findings)."""
        self.kernel = kernel
        self.function_name = function_name
        self.whole = whole
        self.ranges: dict[str, tuple[int, int]] = {}  # static range of each loop variable in scope
        self.loops: list[tuple[str, Ix, Ix]] = []  # loops in scope: variable, least and greatest value
        self.steps: dict[str, tuple[Ix, int]] = {}  # each loop variable in scope: its first value and step
        self.used = first.referenced if first is not None else None
        self.referenced: set[int] = set()
        self.serial = 0
        self.taken = declared_names(kernel)
        clash = self.taken & (set(PARAMETERS) | {workspace_view(w) for w in kernel.workspaces})
        if clash:
            raise ValueError(f"kernel {kernel.name}: names {sorted(clash)} collide with the C function's own")
        self.scopes: list[dict[str, Pointer]] = []
        self.bodies_open: list[tuple] = []  # the statement lists being lowered, outermost first
        self.lines: list[str] = []
        self.cached: dict[str, tuple[str, str]] = {}  # params field (C expression) -> (local name, C type)
        self.views: dict[str, tuple[str, str]] = {}  # pool role -> (local view, what it copies)
        self.flats: dict[str, str] = {}  # local view -> the pointer to its first byte (`flat`)
        self.bodies: list[list] = []  # per loop in scope: [first line of its body, depth, {hoisted value: name}]
        self.isa_state(first)

    def isa_state(self, first: CoreLowering | None) -> None:
        """The state an instruction set's lowering keeps (from the `first` pass's findings in the second):
        none in the portable form."""

    # -- helpers ---------------------------------------------------------------------------------

    def line(self, depth: int, text: str) -> None:
        self.lines.append(INDENT * depth + text)

    def fresh(self, base: str) -> str:
        """A temporary not among the description's names (declared in its own block)."""
        name, k = base, 1
        while name in self.taken:
            name, k = f"{base}{k}", k + 1
        return name

    def local(self, text: str) -> str:
        """A new local's name after the C expression `text` it holds (c_p_bias for p->bias), taken."""
        name = self.fresh("c_" + re.sub(r"\W+", "_", text).strip("_"))
        self.taken.add(name)
        return name

    def code(self, depth: int, lines: list[str]) -> None:
        """Lines of C at `depth`, nested one level deeper after each line ending in `{` (`} else {` too)."""
        for text in lines:
            depth -= text.startswith("}")
            self.line(depth, text)
            depth += text.endswith("{")

    def declare(self, name: str, pointer: Pointer, helpers: tuple[str, ...] = ()) -> None:
        scope = self.scopes[-1]
        for n in (name, *helpers):
            if n in scope:
                raise ValueError(f"kernel {self.kernel.name}: {n} declared twice in one loop body")
            if n != name and n in self.taken:
                raise ValueError(f"kernel {self.kernel.name}: generated name {n} collides with the description's")
        scope[name] = Pointer(pointer.kind, pointer.run_stride, self.serial, pointer.size, pointer.ctype)
        self.serial += 1
        for n in helpers:
            scope[n] = Pointer("helper")

    def ref(self, name: str) -> str:
        """`name`, noted as read (the declaration it resolves to is used)."""
        pointer = self.lookup(name)
        if pointer is not None:
            self.referenced.add(pointer.serial)
        return name

    def own_buffer(self, name: str) -> bool:
        """Whether `name` is a buffer of the kernel's own (a RegAlloc): never a pointer into the pool."""
        pointer = self.lookup(name)
        return pointer is not None and pointer.kind == "buffer"

    def lookup(self, name: str) -> Pointer | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def at(self, name: str, index: Ix) -> str:
        """C index into `name` of the description's index (rewritten for a strided load's copy)."""
        self.ref(name)
        pointer = self.lookup(name)
        if pointer is None or pointer.run_stride is None:
            return index.c()
        stride = pointer.run_stride
        if isinstance(stride, Const) and stride.value > 0:
            split = split_index(index, stride.value)
            if split is not None:
                run, byte = split
                text = "0" if isinstance(run, Const) and run.value == 0 else f"{paren(run.c())} * {name}_rs"
                return text if byte == 0 else (str(byte) if text == "0" else f"{text} + {byte}")
        s, i = paren(stride.c()), paren(index.c())
        return f"({i} / {s}) * {name}_rs + {i} % {s}"

    def view(self, tensor: str) -> str:
        """The view of a pool role: a local copy of the step's view, declared at the top of the
        function. Through the pointers the runtime passes, the compiler would reload a view's
        fields after every byte stored (an int8_t store may alias them); a local struct whose
        fields are never written stays in registers."""
        if self.kernel.workspace(tensor) is not None:  # a workspace, or the ring a pulled input lives in
            return f"&{workspace_view(self.kernel.workspace(tensor))}"
        if tensor == "output":
            source = "*output"
        elif re.fullmatch(r"input\d+", tensor):
            source = f"inputs[{tensor[5:]}]"
        else:
            raise ValueError(f"kernel {self.kernel.name}: unknown tensor {tensor}")
        if tensor not in self.views:
            self.views[tensor] = (self.fresh(f"view_{tensor}"), source)
            self.taken.add(self.views[tensor][0])
        return f"&{self.views[tensor][0]}"

    def flat(self, view: str) -> str:
        """A pointer to byte 0 of a view (`&name`) whose bytes do not cross the end of the pool, declared
        once at the top of the function, for the plain pointers into tensors in one piece: each access
        adds its offset to one value the compiler keeps in a register (or reloads once), where the
        view's pool and base were two (0.5-1.8 % fewer instructions on the shared models)."""
        name = view.lstrip("&")
        if name not in self.flats:
            self.flats[name] = self.fresh(f"flat_{name}")
            self.taken.add(self.flats[name])
        return self.flats[name]

    def offset(self, tensor: str, offset: Ix) -> Ix | str:
        """The view offset of a logical offset: a workspace keeps byte b at b % capacity."""
        ws = self.kernel.workspace(tensor)
        if ws is None:
            return offset
        if isinstance(offset, Const):
            return Const(offset.value % ws.capacity)
        if isinstance(offset, Sum):  # terms that are whole multiples of the capacity vanish mod it
            rest = Const(offset.const)
            for coef, part in offset.parts:
                rest = rest if coef % ws.capacity == 0 else rest + part * coef
            lo, hi = self.bounds(rest)
            if 0 <= lo and hi < ws.capacity:  # a channel plane: plane * q + pixel -> pixel
                return rest
            split = self.ring_split(offset, ws.capacity)
            if split is not None:
                row, byte = split
                return f"(uint32_t)({self.ring_row(row, ws.capacity, ws.wraps)} + {paren(byte.c())})"
        return f"(uint32_t)({offset.c()} % {ws.capacity})"

    def ring_split(self, offset: Sum, capacity: int) -> tuple[Ix, Ix] | None:
        """(row, byte) with offset = row + byte, row a multiple of some g dividing the capacity and
        0 <= byte < g: then offset % capacity = row % capacity + byte. A ring of rows indexed by
        row and channel so takes its modulo once per row, a loop invariant of the channel loops,
        instead of once per channel group. The constant goes where it keeps byte in [0, g) (a
        window's column -pad + kx is negative only outside the interior). The largest such g;
        None where there is none."""
        for g in divisors(capacity):
            row, byte = Const(0), Const(0)
            for coef, part in offset.parts:
                if coef % g == 0:
                    row = row + part * coef
                else:
                    byte = byte + part * coef
            lo, hi = self.bounds(byte)
            const = (lo + offset.const) % g - lo  # the constant's share of the byte: = const mod g, the least >= -lo
            if row.variables() and byte.variables() and 0 <= lo + const and hi + const < g:
                return row + (offset.const - const), byte + const
        return None

    def ring_row(self, row: Ix, capacity: int, line: bool = False) -> str:
        """`row % capacity` in C. Where the row's innermost variable (a kernel row ky) runs in a loop
        inside others the row does not depend on (a pixel's columns and channel groups), the
        remainders of its few values are made once into a table at the start of the loop around
        those (the output row's), and the kernel rows read them from it: a load instead of a
        division and its operands at every row of every channel group. Windows of fewer than five
        rows keep the division, which GCC makes cheaper than the table there (KWS's 3x3 windows),
        except in a line ring (`line`), whose rows do not divide its capacity: there the division
        is inside the channel groups' loop (the byte within a pixel pair is the remainder's part)."""
        plain = f"{paren(row.c())} % {capacity}"
        levels = sorted(k for k, (var, _, _) in enumerate(self.loops) if var in row.variables())
        if len(levels) < 2 or levels[-1] - levels[-2] < 3:  # fewer than two loops in between: no gain
            return plain
        var = self.loops[levels[-1]][0]
        lo, hi = self.ranges[var]
        if not (2 if line else 4) <= hi - lo < 16:
            return plain
        start, depth, seen = self.bodies[levels[-2]]
        key = f"ring rows {row.c()} {capacity}"
        if key not in seen:
            seen[key] = self.fresh("ring_rows")
            self.taken.add(seen[key])
            k = self.fresh("k")
            value = substitute(row, var, Var(k) + lo)
            self.lines[start:start] = [
                f"{INDENT * depth}int32_t {seen[key]}[{hi - lo + 1}]; /* ring offsets of the rows {var} reads */",
                f"{INDENT * depth}for (int32_t {k} = 0; {k} < {hi - lo + 1}; ++{k}) {{",
                f"{INDENT * (depth + 1)}{seen[key]}[{k}] = {paren(value.c())} % {capacity};",
                f"{INDENT * depth}}}"]
            for body in self.bodies[levels[-2] + 1:]:
                body[0] += 4
        return f"{seen[key]}[{paren((Var(var) - lo).c())}]"

    def u32_offset(self, tensor: str, offset: Ix) -> str:
        off = self.offset(tensor, offset)
        return off if isinstance(off, str) else u32(off)

    def bounds(self, e: Ix) -> tuple[int, int]:
        """Least and greatest value of `e` in the loops around the statement being lowered."""
        return loop_bounds(e, self.loops, self.ranges)

    def multiple_of_4(self, e: Ix) -> bool:
        """Whether `e` is a multiple of 4 at every iteration: a sum of such multiples, among them a loop
        variable whose first value is one and whose step is one."""
        if isinstance(e, Const):
            return e.value % 4 == 0
        if isinstance(e, Var) and e.name in self.steps:
            first, step = self.steps[e.name]
            return step % 4 == 0 and self.multiple_of_4(first)
        return isinstance(e, Sum) and e.const % 4 == 0 and all(coef % 4 == 0 or self.multiple_of_4(part)
                                                               for coef, part in e.parts)

    def param(self, expr: str, ctype: str) -> str:
        """A local copy of the params field `expr`, declared at the top of the function. The kernel
        stores bytes through int8_t pointers, which may alias anything, so the compiler would
        reload every params field the loops read after every store; the params never change.
        A literal (an offset folded into the bias is "0") stays itself."""
        if re.fullmatch(r"-?\d+", expr):
            return expr
        if expr not in self.cached:
            self.cached[expr] = (self.local(expr), ctype)
        return self.cached[expr][0]

    def invariant(self, array: str, ctype: str, index: Ix) -> str:
        """`array[index]` of a params array, read into a local at the start of the innermost loop
        whose variable the index uses (a channel's multiplier in a loop over that channel's
        pixels): the params never change, but an int8_t store inside the loop may alias them, so
        the compiler would load them again after every store."""
        names = index.variables()
        level = max((k for k, (var, _, _) in enumerate(self.loops) if var in names), default=None)
        if level is None:
            return f"{array}[{index.c()}]"
        start, depth, seen = self.bodies[level]
        key = f"{array}[{index.c()}]"
        if key not in seen:
            seen[key] = self.local(key)
            self.lines.insert(start, f"{INDENT * depth}const {ctype} {seen[key]} = {key}; /* invariant in this loop */")
            for body in self.bodies[level + 1:]:
                body[0] += 1
        return seen[key]

    def unused(self, depth: int, name: str) -> None:
        """(void) a declaration no statement reads (-Wunused-variable), known in the second pass."""
        if self.used is not None and self.lookup(name).serial not in self.used:
            self.line(depth, f"(void){name};")

    # -- the function ---------------------------------------------------------------------------

    def function(self) -> str:
        k = self.kernel
        self.line(0, SIGNATURE.format(name=self.function_name))
        self.line(0, "{")
        self.line(1, f"const {k.params_type} *p = (const {k.params_type} *)params;")
        for ws in k.workspaces:
            base = "ctx->step->workspace" if ws.at == 0 else f"(ctx->step->workspace + {ws.at}u) % ctx->pool_size"
            if ws.wraps:  # in one piece of the pool (the step's check): a view that wraps at the ring's end
                self.line(1, f"const vmcu_view {workspace_view(ws)} = {{ctx->pool + {base}, {ws.capacity}u, 0u}};")
            else:
                self.line(1, f"const vmcu_view {workspace_view(ws)} = {{ctx->pool, ctx->pool_size, {base}}};")
        self.line(1, "(void)ctx;")
        self.line(1, "(void)p;")
        self.line(1, "(void)inputs;")
        self.line(1, "(void)output;")
        top = len(self.lines)
        self.body(k.body, 1)
        self.line(1, "return VMCU_OK;")
        self.line(0, "}")
        self.lines[top:top] = [f"{INDENT}const {ctype}{'' if ctype.endswith('*') else ' '}{name} = {expr}; "
                               "/* a params field, read once */" for expr, (name, ctype) in self.cached.items()] + [
            f"{INDENT}const vmcu_view {name} = {source}; /* the step's view, read once */"
            for name, source in self.views.values()] + [
            f"{INDENT}int8_t *const {flat} = {view}.pool + {view}.base; /* the view in one piece: byte i at {flat}[i] */"
            for view, flat in self.flats.items()]
        return "\n".join(self.lines) + "\n"

    def body(self, stmts, depth: int) -> None:
        self.scopes.append({})
        self.bodies_open.append(stmts)
        for k, stmt in enumerate(stmts):
            getattr(self, f"lower_{type(stmt).__name__}")(stmt, depth)
            self.after_statement(stmt, stmts[k + 1:], depth)
        self.bodies_open.pop()
        self.scopes.pop()

    def after_statement(self, stmt, rest, depth: int) -> None:
        """What an instruction set declares after a statement (`rest`: the statements after it in its
        body): nothing in the portable form."""

    def partial(self, name: str) -> bool:
        """Whether `name` is an accumulator of int64 lanes whose products an instruction set sums in a
        vector of int32 partial sums first (Requantize and InitBias then see to them): not in the
        portable form."""
        return False

    def vector(self, name: str) -> bool:
        """Whether `name` is an accumulator an instruction set keeps in vector registers (a statement
        that reads it as an array is then written for it): not in the portable form."""
        return False

    # -- statements -----------------------------------------------------------------------------

    def lower_Loop(self, s: Loop, depth: int) -> None:
        if isinstance(s.lo, Const) and isinstance(s.hi, Const) and s.lo.value >= s.hi.value:
            return  # runs no iteration (in the interior, the edge taps only one pixel of a pair has)
        v = s.var
        incr = f"++{v}" if s.step == 1 else f"{v} += {s.step}"
        if isinstance(s.hi, Const):
            head = f"int32_t {v} = {s.lo.c()}; {v} < {s.hi.c()}; {incr}"
        else:
            end = self.fresh(f"{v}_end")
            head = f"int32_t {v} = {s.lo.c()}, {end} = {s.hi.c()}; {v} < {end}; {incr}"
        self.line(depth, f"for ({head}) {{")
        outer = self.ranges
        self.ranges = {**outer, v: loop_range(s, outer)}
        self.loops.append((v, s.lo, greatest(s)))
        self.steps[v] = (s.lo, s.step)
        self.bodies.append([len(self.lines), depth + 1, {}])
        self.body(s.body, depth + 1)
        self.bodies.pop()
        self.loops.pop()
        del self.steps[v]
        self.ranges = outer
        self.line(depth, "}")

    def lower_RegAlloc(self, s: RegAlloc, depth: int) -> None:
        self.declare(s.name, Pointer("buffer", size=s.size, ctype=s.ctype))
        small = s.ctype == "int8_t" and s.size < 16  # vector stores land in it on Helium (vmcu_dsp.h)
        aligned = " VMCU_WORD_ALIGNED" if s.ctype == "int16_t" else ""  # widened inputs: read by LDRD
        self.line(depth, f"{s.ctype} {s.name}[{f'VMCU_BUFFER_BYTES({s.size})' if small else s.size}]{aligned};")
        if s.fill is not None:
            if s.ctype in ("int8_t", "uint8_t"):
                self.line(depth, f"vmcu_set_s8({s.name}, {s.fill}, {s.size});")
            elif s.fill == "0" and s.ctype == "int16_t":  # a 16x8 window's zero point: word stores
                self.zero16(s, depth)
            else:
                i = self.fresh("i")
                self.line(depth, f"for (int32_t {i} = 0; {i} < {s.size}; ++{i}) {{")
                self.line(depth + 1, f"{s.name}[{i}] = {s.fill};")
                self.line(depth, "}")
        self.unused(depth, s.name)

    def zero16(self, s: RegAlloc, depth: int) -> None:
        """An int16 buffer set to 0 (a 16x8 window's zero point)."""
        self.line(depth, f"memset({s.name}, 0, sizeof({s.name}));")

    def lower_FlashLoad(self, s: FlashLoad, depth: int) -> None:
        if s.into:
            if self.lookup(s.name) is None or self.lookup(s.name).size < s.count:
                raise ValueError(f"kernel {self.kernel.name}: FlashLoad into {s.name}, not a buffer of {s.count}")
            self.ref(s.name)
            if s.lanes == 2:  # two channels' taps, laid out in column pairs on the DSP path (vmcu_column_taps_s8)
                if not s.row or s.count % s.row or self.lookup(s.name).size < 2 * (s.count + s.count // s.row):
                    raise ValueError(f"kernel {self.kernel.name}: FlashLoad of two lanes into {s.name}, "
                                     f"not {s.count} taps in rows of {s.row}")
                if s.lane_order:  # the filter's start and the taps' first index: the order maps whole indexes
                    self.line(depth, f"vmcu_column_taps_lanes16({s.name}, {self.filter(s.array, True)}, "
                                     f"{s.offset.c()}, {s.stride}, {s.count // s.row}, {s.row});")
                    return
                filter_ = plus(self.filter(s.array, False), paren(s.offset.c()))
                self.line(depth, f"vmcu_column_taps_s8({s.name}, {filter_}, {s.stride}, {s.count // s.row}, {s.row});")
                return
            i = self.fresh("i")
            self.line(depth, f"for (int32_t {i} = 0; {i} < {s.count}; ++{i}) {{")
            at = index_sum(paren(s.offset.c()), f"{i} * {s.stride}")
            if s.lane_order:
                at = f"vmcu_lane_order({at})"
            self.line(depth + 1, f"{s.name}[{i}] = {self.filter(s.array, s.lane_order)}[{at}];")
            self.line(depth, "}")
            return
        self.declare(s.name, Pointer("flash", ctype=s.ctype))
        flash = plus(self.param(s.array, f"{s.ctype} *"), paren(s.offset.c()))
        self.line(depth, f"const {s.ctype} *{s.name} = {flash};")
        self.unused(depth, s.name)

    def lower_Broadcast(self, s: Broadcast, depth: int) -> None:
        self.declare(s.name, Pointer("word"))
        if re.fullmatch(r"-?\d+", s.value):  # a literal (a folded offset's 0): a constant the compiler sees
            half = int(s.value) & 0xFFFF
            self.line(depth, f"const uint32_t {s.name} = {half | half << 16}u;")
            self.line(depth, f"(void){s.name};")
            return
        self.broadcast_word(s, depth)
        self.line(depth, f"(void){s.name};")

    def broadcast_word(self, s: Broadcast, depth: int) -> None:
        """The declaration of a Broadcast of a value known at run time: the portable paths add the
        offset themselves, so their word is 0."""
        self.line(depth, f"const uint32_t {s.name} = 0u; /* the portable paths add the offset themselves */")

    def lower_AddResidual(self, s: AddResidual, depth: int) -> None:
        """dst = ADD(dst, residual) element by element (operands in the model's order), through
        vmcu_add_s8_run: the ADD's params read once, in the narrow form where they allow it."""
        dst = plus(s.dst, paren(self.at(s.dst, s.dst_index)))
        res = plus(s.residual, paren(self.at(s.residual, s.residual_index)))
        first, second = (res, dst) if s.residual_first else (dst, res)
        self.line(depth, f"vmcu_add_s8_run({s.add}, {first}, 1, {second}, 1, {dst}, {s.count.c()});")

    def lower_Accumulate(self, s: Accumulate, depth: int) -> None:
        """acc[k] += src[k], one sum at a time (int8 values, or a 16x8 chain's int16 ones)."""
        k = self.fresh("k")
        self.ref(s.acc)
        index = paren(self.at(s.src, s.src_index))
        self.line(depth, f"for (int32_t {k} = 0; {k} < {paren(s.count.c())}; ++{k}) {{")
        self.line(depth + 1, f"{s.acc}[{k}] += {s.src}[{index_sum(index, k)}];")
        self.line(depth, "}")

    def lower_Average(self, s: Average, depth: int) -> None:
        """TFLite's AveragePool rounding: (sum +- divisor / 2) / divisor, C's division truncating."""
        k, total = self.fresh("k"), self.fresh("sum")
        self.ref(s.acc)
        half = s.divisor // 2
        ctype = self.lookup(s.dst).ctype if self.lookup(s.dst) is not None else "int8_t"  # int16 means of a 16x8 chain
        self.line(depth, f"for (int32_t {k} = 0; {k} < {paren(s.count.c())}; ++{k}) {{")
        self.code(depth + 1, [
            f"const int32_t {total} = {s.acc}[{k}];",
            f"{s.dst}[{k}] = ({ctype})vmcu_clamp(({total} > 0 ? {total} + {half} : {total} - {half}) / {s.divisor}, "
            f"{s.act_min}, {s.act_max});"])
        self.line(depth, "}")
