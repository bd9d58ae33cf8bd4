"""C for kernel descriptions: one C99 function per kernel configuration (paper section 5).

`lower(kernel, name)` gives the text of `static vmcu_status name(ctx, params, inputs, output)`,
the runtime's kernel signature (csrc/include/vmcu/vmcu_kernels.h), executing the description
statement by statement: loops become `for` loops over int32 variables, index expressions their
`c()`, the intrinsics calls of the runtime's inline helpers (vmcu_support.h, vmcu_dsp.h: the
SMLAD / SMLABB paths with their portable fallbacks). Every declaration a statement makes lives in
the C block of the loop body holding the statement, so a name declared again in a nested loop
shadows the outer one exactly as in the description. `render_kernels` gives the C fragment of a
model's kernels.

Loads that wrap. A RAMLoad without `into` is a pointer into the pool when its bytes do not cross
the end of the pool, else a copy in a stack buffer of `max_bytes` (the description's static
bound of runs * length) with the runs packed (run r at r * length). The description indexes a
loaded pointer as if it pointed into the pool (run r at r * run_stride), so a load that may have
several runs gets a run stride variable `<name>_rs` (run_stride, or length for a copy), and every
index into it is rewritten from `r * run_stride + b` to `r * <name>_rs + b`: symbolically when the
index expression is a multiple of the constant stride plus a constant (every description today),
else with a division at run time. Packing keeps the stack to `max_bytes`; copying the whole span
with the pool's stride instead would need (runs - 1) * run_stride + length bytes (a depthwise
window row over wide pixels: kilobytes) to copy a few bytes per run.

Tensors that do not wrap. The plan is static, so the converter knows which of a step's tensors
lie in one piece; `lower(..., whole=...)` reads and writes those through plain pointers
(vmcu_flat, memcpy): no wrap test and no copy buffer on the stack.

int16 activations (16x8 layers). A RAMLoad of int16_t elements is a `const int16_t *` into the pool only
where its bytes neither wrap nor sit at an odd address (vmcu_span16), else a copy: the C never trusts
the tables or the application's pool for the alignment. Its Dots and DotLanes call the int16 dot
products (vmcu_dot_s16_s8_64 / _32: SMLAD on input pairs on the DSP path, into int64 accumulators
in chunks that cannot overflow int32) and its Requantize the 64-bit form (vmcu_requantize64). On
Helium the dot products take their _mve forms (VMLALDAVA.S16 into int64: eight products per instruction).
A gathered window (a RAMLoad of int16_t `into` an int16 buffer: its bytes copied, the wrap handled by
vmcu_read) meets a filter the converter widened to int16 (vmcu_dot_s16_s16_64 / _32: each word of two
inputs and word of two weights one SMLAD, summed from 0 in int32, then added); that product has no MVE
form yet, so Helium runs the same code for it.

A test build may define VMCU_ON_COPY(load) to observe the copies (it counts them).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from .index import Const, Ix, Sum, Var, loop_bounds, simplify, substitute
from .ir import (Accumulate, AddResidual, Average, Broadcast, Dot, DotLanes, DotLanesPair, DotRow, FlashLoad, InitBias,
                 Kernel, Loop, PullRow, PushRow, RAMFree, RAMLoad, RAMStore, RegAlloc, Requantize, Widen, Workspace)
from .c_text import greatest, paren, plus
from .lower_gemm import GemmAssembly
from .schedule import loop_range, walk

INDENT = "    "
SIGNATURE = ("static vmcu_status {name}(const vmcu_context *ctx, const void *params, const vmcu_view *inputs, "
             "const vmcu_view *output)")
PARAMETERS = ("ctx", "params", "inputs", "output", "p")

PRELUDE = """#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"
#include "vmcu/vmcu_dsp.h"

/* Runs where a generated kernel copies a load that crosses the end of the pool (tests count them). */
#ifndef VMCU_ON_COPY
#define VMCU_ON_COPY(load) ((void)0)
#endif
"""


@dataclass(frozen=True)
class _Pointer:
    """A name a statement declared: a loaded pointer (maybe strided), a buffer, a flash pointer, a word."""

    kind: str  # "load", "buffer", "flash", "word", "helper"
    run_stride: Ix | None = None  # loads that may have several runs: indexes go through <name>_rs
    serial: int = -1  # declarations in order: the same in both passes of `lower`
    size: int = 0  # a buffer's elements
    ctype: str = "int8_t"  # a buffer's elements' C type


_ELEMENT_BYTES = {"int8_t": 1, "int16_t": 2}


def _u32(e: Ix) -> str:
    return f"{e.value}u" if isinstance(e, Const) and e.value >= 0 else f"(uint32_t){paren(e.c())}"


def _split(index: Ix, stride: int) -> tuple[Ix, int] | None:
    """(a, b) with index = a * stride + b and b a constant in [0, stride), or None."""
    if isinstance(index, Const):
        return Const(index.value // stride), index.value % stride
    parts, const = (index.parts, index.const) if isinstance(index, Sum) else (((1, index),), 0)
    run: Ix = Const(const // stride)
    for coef, part in parts:
        if coef % stride:
            return None
        run = run + part * (coef // stride)
    return run, const % stride


def _names(kernel: Kernel) -> set[str]:
    """Every identifier the description itself declares (loop variables and statement names)."""
    found = set()
    for placed in walk(kernel.body):
        stmt = placed.stmt
        name = stmt.var if isinstance(stmt, Loop) else getattr(stmt, "name", None)
        if name is not None:
            found.add(name)
    return found


def _workspace_view(ws: Workspace) -> str:
    """The C view of a workspace: `ws` for the one at the workspace's start, `ws_<name>` elsewhere."""
    return "ws" if ws.at == 0 else f"ws_{ws.name}"


class _Lowering(GemmAssembly):
    def __init__(self, kernel: Kernel, function_name: str, whole: frozenset[str], used: set[int] | None = None,
                 paired: frozenset[int] = frozenset()) -> None:
        """`whole`: the pool roles known not to cross the end of the pool; `used`: the declarations
        (by serial) the first pass saw read, None in the first pass; `paired`: the widened tiles of
        two pixels (by serial) the first pass found read only by the GEMM assembly (`paired_tiles`)."""
        self.kernel = kernel
        self.function_name = function_name
        self.whole = whole
        self.ranges: dict[str, tuple[int, int]] = {}  # static range of each loop variable in scope
        self.loops: list[tuple[str, Ix, Ix]] = []  # loops in scope: variable, least and greatest value
        self.used = used
        self.referenced: set[int] = set()
        self.serial = 0
        self.taken = _names(kernel)
        clash = self.taken & (set(PARAMETERS) | {_workspace_view(w) for w in kernel.workspaces})
        if clash:
            raise ValueError(f"kernel {kernel.name}: names {sorted(clash)} collide with the C function's own")
        self.scopes: list[dict[str, _Pointer]] = []
        self.bodies_open: list[tuple] = []  # the statement lists being lowered, outermost first
        self.lines: list[str] = []
        self.cached: dict[str, tuple[str, str]] = {}  # params field (C expression) -> (local name, C type)
        self.views: dict[str, tuple[str, str]] = {}  # pool role -> (local view, what it copies)
        self.bodies: list[list] = []  # per loop in scope: [first line of its body, depth, {hoisted value: name}]
        self.unwidened: dict[int, Widen] = {}  # widened buffers (by serial) Helium reads from their int8 source
        self.vectors: set[int] = set()  # four-lane accumulators (by serial) Helium keeps in a vector register
        self.partials: set[int] = set()  # int64 lanes (by serial) whose products Helium sums in int32 first
        self.gemm_state(paired)

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

    def declare(self, name: str, pointer: _Pointer, helpers: tuple[str, ...] = ()) -> None:
        scope = self.scopes[-1]
        for n in (name, *helpers):
            if n in scope:
                raise ValueError(f"kernel {self.kernel.name}: {n} declared twice in one loop body")
            if n != name and n in self.taken:
                raise ValueError(f"kernel {self.kernel.name}: generated name {n} collides with the description's")
        scope[name] = _Pointer(pointer.kind, pointer.run_stride, self.serial, pointer.size, pointer.ctype)
        self.serial += 1
        for n in helpers:
            scope[n] = _Pointer("helper")

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

    def lookup(self, name: str) -> _Pointer | None:
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
            split = _split(index, stride.value)
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
            return f"&{_workspace_view(self.kernel.workspace(tensor))}"
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
        for g in _divisors(capacity):
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
        return off if isinstance(off, str) else _u32(off)

    def bounds(self, e: Ix) -> tuple[int, int]:
        """Least and greatest value of `e` in the loops around the statement being lowered."""
        return loop_bounds(e, self.loops, self.ranges)

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
                self.line(1, f"const vmcu_view {_workspace_view(ws)} = {{ctx->pool + {base}, {ws.capacity}u, 0u}};")
            else:
                self.line(1, f"const vmcu_view {_workspace_view(ws)} = {{ctx->pool, ctx->pool_size, {base}}};")
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
            for name, source in self.views.values()]
        return "\n".join(self.lines) + "\n"

    def body(self, stmts, depth: int) -> None:
        self.scopes.append({})
        self.bodies_open.append(stmts)
        for k, stmt in enumerate(stmts):
            getattr(self, f"lower_{type(stmt).__name__}")(stmt, depth)
            if isinstance(stmt, RegAlloc) and _lane_accumulator(stmt, stmts[k + 1:]):
                self.vectors.add(self.lookup(stmt.name).serial)
                self.lines.append("#if VMCU_MVE")
                self.line(depth, f"int32x4_t {stmt.name}_v; /* {stmt.name} in a vector register */" if stmt.size == 4
                          else f"int32x4_t {stmt.name}_e, {stmt.name}_o; /* {stmt.name}'s even and odd lanes */")
                self.line(depth, f"(void){stmt.name};")
                self.lines.append("#endif")
            if isinstance(stmt, RegAlloc) and _wide_lanes(stmt, stmts[k + 1:], self.ranges):
                self.partials.add(self.lookup(stmt.name).serial)
                self.lines.append("#if VMCU_MVE")
                self.line(depth, f"int32x4_t {stmt.name}_s = vdupq_n_s32(0); /* {stmt.name}'s products not yet "
                                 f"added to it */")
                self.lines.append("#endif")
        self.bodies_open.pop()
        self.scopes.pop()

    def partial(self, name: str) -> bool:
        """Whether `name` is a 16x8 depthwise accumulator of four int64 lanes with a vector of int32
        partial sums on Helium (`_wide_lanes`): DotLanes adds to the vector, Requantize first
        flushes it into the int64 lanes."""
        pointer = self.lookup(name)
        return pointer is not None and pointer.serial in self.partials

    def vector(self, name: str) -> bool:
        """Whether `name` is a four-lane accumulator Helium keeps in a vector (`_lane_accumulator`)."""
        pointer = self.lookup(name)
        return pointer is not None and pointer.serial in self.vectors

    # -- statements -----------------------------------------------------------------------------

    def lower_Loop(self, s: Loop, depth: int) -> None:
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
        self.bodies.append([len(self.lines), depth + 1, {}])
        self.body(s.body, depth + 1)
        self.bodies.pop()
        self.loops.pop()
        self.ranges = outer
        self.fallback = fallback
        self.line(depth, "}")

    def lower_RegAlloc(self, s: RegAlloc, depth: int) -> None:
        self.declare(s.name, _Pointer("buffer", size=s.size, ctype=s.ctype))
        small = s.ctype == "int8_t" and s.size < 16  # vector stores land in it on Helium (vmcu_dsp.h)
        aligned = " VMCU_WORD_ALIGNED" if s.ctype == "int16_t" else ""  # widened inputs: read by LDRD
        self.line(depth, f"{s.ctype} {s.name}[{f'VMCU_BUFFER_BYTES({s.size})' if small else s.size}]{aligned};")
        if s.fill is not None:
            if s.ctype in ("int8_t", "uint8_t"):
                self.line(depth, f"vmcu_set_s8({s.name}, {s.fill}, {s.size});")
            elif s.fill == "0" and s.ctype == "int16_t":  # a 16x8 window's zero point: word stores
                self.lines.append("#if VMCU_MVE")  # vector stores (newlib's memset: about 2 instructions a word)
                self.line(depth, f"vmcu_zero16_mve({s.name}, {s.size});")
                self.lines.append("#else")
                self.line(depth, f"memset({s.name}, 0, sizeof({s.name}));")
                self.lines.append("#endif")
            else:
                i = self.fresh("i")
                self.line(depth, f"for (int32_t {i} = 0; {i} < {s.size}; ++{i}) {{")
                self.line(depth + 1, f"{s.name}[{i}] = {s.fill};")
                self.line(depth, "}")
        self.unused(depth, s.name)

    def lower_FlashLoad(self, s: FlashLoad, depth: int) -> None:
        if s.into:
            if self.lookup(s.name) is None or self.lookup(s.name).size < s.count:
                raise ValueError(f"kernel {self.kernel.name}: FlashLoad into {s.name}, not a buffer of {s.count}")
            self.ref(s.name)
            i = self.fresh("i")
            self.line(depth, f"for (int32_t {i} = 0; {i} < {s.count}; ++{i}) {{")
            self.line(depth + 1, f"{s.name}[{i}] = {self.param(s.array, 'int8_t *')}[{_sum(paren(s.offset.c()), f'{i} * {s.stride}')}];")
            self.line(depth, "}")
            return
        self.declare(s.name, _Pointer("flash", ctype=s.ctype))
        self.line(depth, f"const {s.ctype} *{s.name} = {plus(self.param(s.array, f'{s.ctype} *'), paren(s.offset.c()))};")
        self.unused(depth, s.name)

    def lower_Broadcast(self, s: Broadcast, depth: int) -> None:
        self.declare(s.name, _Pointer("word"))
        if re.fullmatch(r"-?\d+", s.value):  # a literal (a folded offset's 0): a constant the compiler sees
            half = int(s.value) & 0xFFFF
            self.line(depth, f"const uint32_t {s.name} = {half | half << 16}u;")
            self.line(depth, f"(void){s.name};")
            return
        self.lines.append("#if VMCU_DSP")
        self.line(depth, f"const uint32_t {s.name} = vmcu_broadcast16((int32_t)({s.value}));")
        self.lines.append("#else")
        self.line(depth, f"const uint32_t {s.name} = 0u; /* the portable paths add the offset themselves */")
        self.lines.append("#endif")
        self.line(depth, f"(void){s.name};")

    def lower_RAMFree(self, s: RAMFree, depth: int) -> None:
        runs = "" if s.runs == Const(1) else f", {s.runs.c()} runs {s.run_stride.c()} apart"
        self.line(depth, f"/* RAMFree {s.tensor} [{s.offset.c()}, +{s.length.c()}{runs}): "
                         "the plan lets the output land there */")

    def lower_RAMStore(self, s: RAMStore, depth: int) -> None:
        view, off = self.view(s.tensor), self.u32_offset(s.tensor, s.offset)
        src = plus(s.src, paren(self.at(s.src, s.src_index)))
        if self.lookup(s.src) is not None and self.lookup(s.src).ctype != "int8_t":  # wider elements, as bytes
            src = f"(const int8_t *)(const void *)({src})"
        single = self.bounds(s.length) == (1, 1)
        local = self.own_buffer(s.src)  # cannot overlap the pool
        if s.tensor in self.whole:
            at = f"vmcu_flat({view}, {off})"
            self.line(depth, f"{at}[0] = {s.src}[{self.at(s.src, s.src_index)}];" if single
                      else f"{'memcpy' if local else 'memmove'}({at}, {src}, {_u32(s.length)});")
        elif single:
            self.line(depth, f"vmcu_put({view}, {off}, {s.src}[{self.at(s.src, s.src_index)}]);")
        else:
            self.line(depth, f"{'vmcu_write_buffer' if local else 'vmcu_write'}({view}, {off}, {src}, {_u32(s.length)});")

    def lower_PullRow(self, s: PullRow, depth: int) -> None:
        self.row_call(s, depth, "vmcu_pull_row", s.input, "pulled")

    def lower_PushRow(self, s: PushRow, depth: int) -> None:
        self.row_call(s, depth, "vmcu_push_row", s.output, "pushed")

    def row_call(self, s: PullRow | PushRow, depth: int, function: str, port: int, status: str) -> None:
        """A row the application writes into the ring or reads from it, where the ring keeps it
        (the planner never lets such a row cross the end of the pool); a failed callback ends the
        step with its status."""
        view, off = self.view(s.tensor), self.u32_offset(s.tensor, s.offset)
        self.line(depth, "{")
        self.line(depth + 1, f"const vmcu_status {status} = {function}(ctx, {view}, {off}, {port}u, {_u32(s.row)}, "
                             f"{_u32(s.length)});")
        self.line(depth + 1, f"if ({status} != VMCU_OK) {{")
        self.line(depth + 2, f"return {status};")
        self.line(depth + 1, "}")
        self.line(depth, "}")

    def lower_RAMLoad(self, s: RAMLoad, depth: int) -> None:
        if s.into is not None:
            self.load_into(s, depth)
        else:
            self.load_pointer(s, depth)

    def load_into(self, s: RAMLoad, depth: int) -> None:
        """Gather: runs packed into the buffer from into_index on, through the wrap if need be (int16
        elements: the buffer's indexes count elements, the lengths stay bytes)."""
        view, off = self.view(s.tensor), self.u32_offset(s.tensor, s.offset)
        size = _ELEMENT_BYTES[s.ctype]
        if size > 1:
            self.load_elements_into(s, depth, view, off, size)
            return
        dst = plus(s.into, paren(self.at(s.into, s.into_index)))
        runs_hi = self.bounds(s.runs)[1]
        length_lo = self.bounds(s.length)[0]
        whole = s.tensor in self.whole
        self.line(depth, f"/* RAMLoad {s.name}: {s.tensor} into {s.into} */")
        if runs_hi <= 1 and s.runs == Const(1):
            if self.bounds(s.length) == (1, 1):
                byte = f"vmcu_flat({view}, {off})[0]" if whole else f"vmcu_get({view}, {off})"
                self.line(depth, f"{s.into}[{self.at(s.into, s.into_index)}] = {byte};")
                return
            read = (f"memcpy({dst}, vmcu_flat({view}, {off}), {_u32(s.length)});" if whole
                    else f"vmcu_read({view}, {off}, {dst}, {_u32(s.length)});")
            if length_lo > 0:
                self.line(depth, read)
            else:
                self.line(depth, f"if ({s.length.c()} > 0) {{")
                self.line(depth + 1, read)
                self.line(depth, "}")
            return
        at, length, r = (self.fresh(f"{s.name}_{x}") for x in ("at", "len", "r"))
        self.line(depth, "{")
        self.line(depth + 1, f"const uint32_t {at} = {off};")
        self.line(depth + 1, f"const int32_t {length} = {s.length.c()};")
        self.line(depth + 1, f"for (int32_t {r} = 0; {r} < {s.runs.c()} && {length} > 0; ++{r}) {{")
        run_at = f"{at} + (uint32_t)({r} * {paren(s.run_stride.c())})"
        self.line(depth + 2, f"memcpy({dst} + {r} * {length}, vmcu_flat({view}, {run_at}), (uint32_t){length});"
                  if whole else f"vmcu_read({view}, {run_at}, {dst} + {r} * {length}, (uint32_t){length});")
        self.line(depth + 1, "}")
        self.line(depth, "}")

    def load_elements_into(self, s: RAMLoad, depth: int, view: str, off: str, size: int) -> None:
        """A gather of wider elements (a 16x8 layer's window): each run's bytes copied into the buffer,
        run r at element r * length / size from into_index on."""
        buffer = self.lookup(s.into)
        if buffer is None or _ELEMENT_BYTES.get(buffer.ctype) != size:
            raise ValueError(f"kernel {self.kernel.name}: RAMLoad of {s.ctype} into {s.into}, not a {s.ctype} buffer")
        dst = f"(int8_t *)(void *)({plus(s.into, paren(self.at(s.into, s.into_index)))})"
        whole = s.tensor in self.whole
        self.line(depth, f"/* RAMLoad {s.name}: {s.tensor}, {s.ctype} elements into {s.into} */")
        at, length, r = (self.fresh(f"{s.name}_{x}") for x in ("at", "len", "r"))
        single = s.runs == Const(1)
        self.line(depth, "{")
        self.line(depth + 1, f"const uint32_t {at} = {off};")
        self.line(depth + 1, f"const int32_t {length} = {s.length.c()};")
        if single:
            self.line(depth + 1, f"if ({length} > 0) {{")
            self.line(depth + 2, f"memcpy({dst}, vmcu_flat({view}, {at}), (uint32_t){length});"
                      if whole else f"vmcu_read({view}, {at}, {dst}, (uint32_t){length});")
        else:
            self.line(depth + 1, f"for (int32_t {r} = 0; {r} < {s.runs.c()} && {length} > 0; ++{r}) {{")
            run_at = f"{at} + (uint32_t)({r} * {paren(s.run_stride.c())})"
            self.line(depth + 2, f"memcpy({dst} + {r} * {length}, vmcu_flat({view}, {run_at}), (uint32_t){length});"
                      if whole else f"vmcu_read({view}, {run_at}, {dst} + {r} * {length}, (uint32_t){length});")
        self.line(depth + 1, "}")
        self.line(depth, "}")

    def load_pointer(self, s: RAMLoad, depth: int) -> None:
        """A pointer into the pool, or a packed copy when the bytes cross the end of the pool."""
        if s.ctype != "int8_t":
            self.load_elements(s, depth)
            return
        if s.tensor in self.whole:
            self.declare(s.name, _Pointer("load"))
            self.line(depth, f"/* RAMLoad {s.name}: {s.tensor}, a pointer into the pool (it does not wrap) */")
            self.line(depth, f"const int8_t *{s.name} = vmcu_flat({self.view(s.tensor)}, "
                             f"{self.u32_offset(s.tensor, s.offset)});")
            self.unused(depth, s.name)
            return
        if s.max_bytes <= 0:
            raise ValueError(f"kernel {self.kernel.name}: RAMLoad {s.name} has no max_bytes for its copy")
        view, off = self.view(s.tensor), self.u32_offset(s.tensor, s.offset)
        n = s.name
        strided = self.bounds(s.runs)[1] > 1 or not (s.runs == Const(1))
        helpers = (f"{n}_copy", f"{n}_at") + ((f"{n}_runs", f"{n}_len", f"{n}_rs") if strided else ())
        self.declare(n, _Pointer("load", s.run_stride if strided else None), helpers)
        self.line(depth, f"/* RAMLoad {n}: {s.tensor}, a pointer into the pool, or a copy where it wraps */")
        self.line(depth, f"int8_t {n}_copy[{s.max_bytes}];")
        self.line(depth, f"const uint32_t {n}_at = {off};")
        if not strided:
            self.line(depth, f"const int8_t *{n} = vmcu_span({view}, {n}_at, {_u32(s.length)});")
            self.line(depth, f"if ({n} == 0) {{")
            self.line(depth + 1, f'VMCU_ON_COPY("{n}");')
            self.line(depth + 1, f"vmcu_read({view}, {n}_at, {n}_copy, {_u32(s.length)});")
            self.line(depth + 1, f"{n} = {n}_copy;")
            self.line(depth, "}")
            self.unused(depth, n)
            return
        self.runs_or_copy(s, depth, view, paren(s.run_stride.c()), s.run_stride.c())

    def load_elements(self, s: RAMLoad, depth: int) -> None:
        """A load of wider elements (int16 activations): a `const int16_t *` into the pool where the
        bytes do not cross its end and lie aligned (vmcu_span16: the planner aligns such tensors in an
        even pool, but the kernel does not trust the tables or the application's pool for it), else a
        copy. A tensor that does not wrap is read the same way: the alignment test stays."""
        if s.ctype != "int16_t":
            raise NotImplementedError(f"kernel {self.kernel.name}: RAMLoad {s.name} of {s.ctype}")
        n, view, off = s.name, self.view(s.tensor), self.u32_offset(s.tensor, s.offset)
        if not (s.runs == Const(1)):
            self.load_element_runs(s, depth, view, off)
            return
        size = _ELEMENT_BYTES[s.ctype]
        self.declare(n, _Pointer("load", ctype=s.ctype), (f"{n}_copy", f"{n}_at"))
        self.line(depth, f"/* RAMLoad {n}: {s.tensor}, {s.ctype} elements in the pool, or a copy where they wrap */")
        self.line(depth, f"{s.ctype} {n}_copy[{max(1, -(-s.max_bytes // size))}];")
        self.line(depth, f"const uint32_t {n}_at = {off};")
        self.line(depth, f"const {s.ctype} *{n} = vmcu_span16({view}, {n}_at, {_u32(s.length)});")
        self.line(depth, f"if ({n} == 0) {{")
        self.line(depth + 1, f'VMCU_ON_COPY("{n}");')
        self.line(depth + 1, f"vmcu_read({view}, {n}_at, (int8_t *)(void *){n}_copy, {_u32(s.length)});")
        self.line(depth + 1, f"{n} = {n}_copy;")
        self.line(depth, "}")
        self.unused(depth, n)

    def load_element_runs(self, s: RAMLoad, depth: int, view: str, off: str) -> None:
        """Runs of wider elements (a 16x8 depthwise window row): a pointer into the pool where the
        span does not wrap and lies aligned (the runs `run_stride` bytes apart), else the runs packed
        into a copy; the run stride in elements, `<name>_rs`, says which."""
        size = _ELEMENT_BYTES[s.ctype]
        if not isinstance(s.run_stride, Const) or s.run_stride.value % size:
            raise NotImplementedError(f"kernel {self.kernel.name}: RAMLoad {s.name}: runs of {s.ctype} a constant "
                                      "number of elements apart")
        n, stride = s.name, s.run_stride.value
        self.declare(n, _Pointer("load", Const(stride // size), ctype=s.ctype),
                     (f"{n}_copy", f"{n}_at", f"{n}_runs", f"{n}_len", f"{n}_rs"))
        self.line(depth, f"/* RAMLoad {n}: {s.tensor}, runs of {s.ctype} in the pool, or packed in a copy where they "
                         "wrap */")
        self.line(depth, f"{s.ctype} {n}_copy[{max(1, -(-s.max_bytes // size))}];")
        self.line(depth, f"const uint32_t {n}_at = {off};")
        self.runs_or_copy(s, depth, view, str(stride), str(stride // size), size)

    def runs_or_copy(self, s: RAMLoad, depth: int, view: str, stride: str, elements_apart: str, size: int = 1) -> None:
        """The pointer `s.name` to `s.runs` runs of `s.length` bytes `stride` bytes apart in the pool where
        their span neither wraps nor (for wider elements) lies misaligned, else the runs packed into the
        copy; `<name>_rs`, the run stride in elements (`elements_apart`, or a packed run's length), says
        which. The same C for int8 runs and int16 ones but for the span check and the copy's type."""
        n, r = s.name, self.fresh(f"{s.name}_r")
        span, into = ("vmcu_span", f"{n}_copy") if size == 1 else ("vmcu_span16", f"(int8_t *)(void *){n}_copy")
        self.line(depth, f"const int32_t {n}_runs = {s.runs.c()}, {n}_len = {s.length.c()};")
        self.line(depth, f"const {s.ctype} *{n} = {span}({view}, {n}_at, "
                         f"(uint32_t)({n}_runs > 0 ? ({n}_runs - 1) * {stride} + {n}_len : 0));")
        self.line(depth, f"int32_t {n}_rs = {elements_apart};")
        self.line(depth, f"if ({n} == 0) {{ /* the runs, packed */")
        self.line(depth + 1, f'VMCU_ON_COPY("{n}");')
        self.line(depth + 1, f"for (int32_t {r} = 0; {r} < {n}_runs; ++{r}) {{")
        self.line(depth + 2, f"vmcu_read({view}, {n}_at + (uint32_t)({r} * {stride}), {into} + {r} * {n}_len, "
                             f"(uint32_t){n}_len);")
        self.line(depth + 1, "}")
        self.line(depth + 1, f"{n} = {n}_copy;")
        self.line(depth + 1, f"{n}_rs = {n}_len{'' if size == 1 else f' / {size}'};")
        self.line(depth, "}")
        if self.used is not None and self.lookup(n).serial not in self.used:
            self.line(depth, f"(void){n};")
            self.line(depth, f"(void){n}_rs;")

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
        # Helium: the same calls of the MVE forms (VMLALDAVA.S16 / VMLADAVA.S16, eight products each)
        helium = [re.sub(r"\b(vmcu_dot\d?_s16_s8_(?:64|32))\(", r"\1_mve(", line) for line in code]
        self.lines.append("#if VMCU_MVE")
        self.code(depth, helium)
        self.lines.append("#else")
        self.code(depth, code)
        self.lines.append("#endif")

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
        if len(s.weights) not in (2, 4) or hi > len(s.weights) or pixels_hi > 2:
            raise ValueError(f"kernel {self.kernel.name}: Dot of up to {hi} of {len(s.weights)} weight rows (2 or 4) "
                             f"and {pixels_hi} inputs (1 or 2)")
        xs = [plus(s.x, paren(self.at(s.x, index))) for index in (s.x_index, s.x_index + s.x_stride)[:pixels_hi]]
        four = len(s.weights) == 4
        ws = [plus(w, paren(self.at(w, s.w_index))) for w in s.weights[:4 if four else 1 if hi <= 1 else 2]]
        self.ref(s.acc)
        if pointer is not None and pointer.ctype == "int16_t":
            if pointer.serial != self.fallback:
                self.other_reads.add(pointer.serial)
            self.dot_widened(s, xs, ws, depth)
            return
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
            return f"vmcu_dot2_s8_offsets({xs[p]}, {ws[0]}, {ws[-1]}, {tail}, {plus(s.acc, paren((s.acc_index + 2 * p).c()))});"

        def either(two: list[str], one: list[str]) -> list[str]:
            """`two` where the Dot uses both weight rows, else `one`."""
            return one if hi <= 1 else two if lo >= 2 else [f"if ({s.count.c()} > 1) {{", *two, "} else {", *one, "}"]

        tile = f"vmcu_dot2x2_s8_offsets({', '.join(xs)}, {ws[0]}, {ws[-1]}, {tail}, {plus(s.acc, paren(s.acc_index.c()))});"
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
        and rows used, a branch where that number is not a constant. On Helium, where the widening
        added no offset (`offset.py`), the int8 source itself: 16 lanes per VMLADAVA, not 8."""
        if any(self.bounds(e)[0] % 4 or self.bounds(e)[0] != self.bounds(e)[1] for e in (s.x_index, s.x_stride)):
            raise ValueError(f"kernel {self.kernel.name}: a widened Dot starts at a constant multiple of 4")
        acc = plus(s.acc, paren(s.acc_index.c()))
        widen = self.unwidened.get(self.lookup(s.x).serial)
        narrow = [self.narrow_input(widen, s.x_index + p * s.x_stride) for p in range(len(xs))] if widen else []
        wide_weights = self.lookup(s.weights[0]).ctype == "int16_t"  # widened at conversion: words of both
        if wide_weights and len(ws) == 4:
            raise ValueError(f"kernel {self.kernel.name}: int16 weights in a Dot of two rows only")

        # a 16x8 layer's window holds its int16 inputs as they are: sums exact in int64, or wrapping in int32
        helper = ({"int64_t": "vmcu_dot_s16_s16_64", "int32_t": "vmcu_dot_s16_s16_32"}[self.lookup(s.acc).ctype]
                  if self.kernel.element > 1 else "vmcu_dot_s16_s16")

        def call(pixels: int, rows: int) -> str:
            if wide_weights:
                return (f"{helper}({xs[0]}, {xs[1] if pixels > 1 else 0}, {ws[0]}, "
                        f"{ws[-1] if rows > 1 else 0}, {s.length.c()}, {acc});")
            if len(ws) == 4:
                return f"vmcu_dot4_s16_s8({xs[0]}, {xs[1] if pixels > 1 else 0}, {', '.join(ws)}, {s.length.c()}, {acc});"
            return (f"vmcu_dot_s16_s8({xs[0]}, {xs[1] if pixels > 1 else 0}, {ws[0]}, {ws[-1] if rows > 1 else 0}, "
                    f"{s.length.c()}, {acc});")

        def call_mve(pixels: int, rows: int) -> str:
            if len(ws) == 4:
                return (f"vmcu_mve_dots4({narrow[0]}, {narrow[1] if pixels > 1 else 0}, {', '.join(ws)}, "
                        f"{s.length.c()}, 0, {acc});")
            return (f"vmcu_mve_dots({narrow[0]}, {narrow[1] if pixels > 1 else 0}, {ws[0]}, "
                    f"{ws[-1] if rows > 1 else 0}, {s.length.c()}, 0, {acc});")

        rows = [len(ws)] if len(ws) == 4 else range(self.bounds(s.count)[1], self.bounds(s.count)[0] - 1, -1)
        cases = [(p, r) for p in range(self.bounds(s.pixels)[1], self.bounds(s.pixels)[0] - 1, -1) for r in rows]

        def branches(make) -> list[str]:
            if len(cases) == 1:
                return [make(*cases[0])]
            code = []
            for k, (p, r) in enumerate(cases):
                test = f"{s.pixels.c()} == {p}" + ("" if len(ws) == 4 else f" && {s.count.c()} == {r}")
                code += [f"if ({test}) {{" if k == 0 else "} else {" if k == len(cases) - 1
                         else f"}} else if ({test}) {{", make(p, r)]
            return code + ["}"]

        if narrow:
            self.lines.append("#if VMCU_MVE")
            self.code(depth, branches(call_mve))
            self.lines.append("#else")
        self.code(depth, branches(call))
        if narrow:
            self.lines.append("#endif")

    def narrow_input(self, widen: Widen, index: Ix) -> str:
        """The int8 source of element `index` of a Widen's buffer: the Widen maps dst_index + i to
        src_index + i, both linear in at most one loop variable (a tile's pixel t)."""
        at = self.bounds(index)[0]
        (var,) = widen.dst_index.variables() | widen.src_index.variables() or {"_"}
        dst0, dst1 = (int(widen.dst_index.evaluate({var: v})) for v in (0, 1))
        pixel, apart = divmod(at - dst0, dst1 - dst0) if dst1 != dst0 else (0, at - dst0)
        if apart:
            raise ValueError(f"kernel {self.kernel.name}: element {at} of {widen.dst} is not a pixel its Widen wrote")
        source = widen.src_index.evaluate({var: pixel})
        return plus(widen.src, paren(self.at(widen.src, Const(int(source)))))

    def lower_Widen(self, s: Widen, depth: int) -> None:
        """The int8 inputs widened to 16 bits with the offset. Where the offset is 0 (folded into the
        bias, `offset.py`) Helium skips the widening: its dot products read the int8 source."""
        self.ref(s.dst)
        self.ref(s.src)
        self.ref(s.offsets)
        src = plus(s.src, paren(self.at(s.src, s.src_index)))
        if s.natural:  # for int16 weights: in order on every core
            self.line(depth, f"vmcu_widen_s8_natural({plus(s.dst, paren(s.dst_index.c()))}, {src}, {s.length.c()}, "
                             f"{s.offsets}, {self.param(s.x_offset, 'int32_t')});")
            return
        skipped = (s.x_offset == "0" and len(s.dst_index.variables() | s.src_index.variables()) <= 1
                   and (self.own_buffer(s.src) or self.source_outlives_dots(s.dst)))  # a gathered copy, or a load
        if skipped:
            self.unwidened[self.lookup(s.dst).serial] = s
            self.lines.append("#if VMCU_MVE")
            self.line(depth, f"(void){s.dst}; /* the dot products read {s.src} */")
            self.lines.append("#else")
        self.line(depth, f"vmcu_widen_s8({plus(s.dst, paren(s.dst_index.c()))}, {src}, {s.length.c()}, {s.offsets}, "
                         f"{self.param(s.x_offset, 'int32_t')});")
        if skipped:
            self.lines.append("#endif")

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
        if s.acc1 is None:
            self.line(depth, f"{s.acc}[0] = vmcu_dot_row_s8({x}, {w}, {s.length.c()}, {s.offsets}, {x_offset}, "
                             f"{s.acc}[0]);")
            return
        self.ref(s.acc1)
        self.line(depth, f"vmcu_dot_row2_s8({x}, {w}, {s.length.c()}, {s.offsets}, {x_offset}, {s.acc}, {s.acc1});")

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
        w = self.ref(s.w) if registers else self.param(s.w, "int8_t *")
        x_offset = self.param(s.x_offset, "int32_t")
        self.ref(s.acc)
        self.ref(s.offsets)
        l = self.fresh("l")
        scalar = [f"{s.acc}[{l}] += ((int32_t){s.x}[{_sum(x_index, l)}] + {x_offset}) * "
                  f"{'' if registers else '(int32_t)'}{w}[{_sum(w_index, l)}];"]
        four = "if (" + ("1" if lo == 4 else f"{s.lanes.c()} == 4") + ") {"
        x, taps = plus(s.x, paren(x_index)), plus(w, w_index)
        size = self.lookup(s.acc).size
        mve = self.vector(s.acc) and (size == 8 or hi == 4)  # the vector path takes the lanes
        if mve and size == 4:  # Helium: one multiply and one add of the register's four lanes
            self.lines.append("#if VMCU_MVE")
            self.code(depth, [four, f"{s.acc}_v = vmcu_mac4_s8_mve({x}, {taps}, {x_offset}, {s.acc}_v);", "} else {",
                              f"vst1q_s32({s.acc}, {s.acc}_v);"])
            self.for_lanes(depth + 1, l, s.acc, s.lanes, lo, hi)
            self.code(depth + 2, scalar)
            self.line(depth + 1, "}")
            self.line(depth + 1, f"{s.acc}_v = vld1q_s32({s.acc});")
            self.line(depth, "}")
            self.lines.append("#else")
        if mve and size == 8:  # Helium: eight 16-bit lanes, the products widened by VMULLB/VMULLT
            self.lines.append("#if VMCU_MVE")
            self.line(depth, f"vmcu_mac8_s8_mve({x}, {taps}, {x_offset}, {s.lanes.c()}, &{s.acc}_e, &{s.acc}_o);")
            self.lines.append("#else")
        if hi in (4, 8):  # four lanes per DSP word
            self.lines.append("#if VMCU_DSP")
            self.line(depth, f"if ({'1' if lo == hi else f'{s.lanes.c()} == {hi}'}) {{")
            for at in ("", " + 4")[:hi // 4]:
                self.line(depth + 1, f"vmcu_mac4_s8(vmcu_load32({x}{at}), vmcu_load32({taps}{at}), {s.offsets}, "
                                     f"{s.acc}{at});")
            self.line(depth, "} else")
            self.lines.append("#endif")
        self.for_lanes(depth, l, s.acc, s.lanes, lo, hi)
        self.code(depth + 1, scalar)
        self.line(depth, "}")
        if mve:
            self.lines.append("#endif")

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
        product = f"(int32_t){s.x}[{_sum(x_index, l)}] * (int32_t){w}[{_sum(w_index, l)}]"
        update = (f"{s.acc}[{l}] += (int64_t)({product});" if acc_type == "int64_t" else
                  f"{s.acc}[{l}] = (int32_t)((uint32_t){s.acc}[{l}] + (uint32_t)({product}));")
        partial = self.partial(s.acc)
        if partial:  # Helium: the four products by one VMUL into the int32 partial sums
            x, taps = plus(s.x, paren(x_index)), plus(w, w_index)
            self.lines.append("#if VMCU_MVE")
            self.line(depth, f"{s.acc}_s = vmcu_mac4_s16_s8_mve({x}, {taps}, {s.acc}_s);" if lo == 4 else
                      f"{s.acc}_s = vmcu_mac4_s16_s8_z_mve({x}, {taps}, {s.lanes.c()}, {s.acc}_s);")
            self.lines.append("#else")
        self.for_lanes(depth, l, s.acc, s.lanes, lo, hi)
        self.code(depth + 1, [update])
        self.line(depth, "}")
        if partial:
            self.lines.append("#endif")

    def lower_DotLanesPair(self, s: DotLanesPair, depth: int) -> None:
        """vmcu_mac2x2_row_s8 on the DSP path (a full group: both lanes of each half), else a loop over
        the taps of the scalar products."""
        lo, hi = self.bounds(s.lanes)
        if hi > 4:
            raise ValueError(f"kernel {self.kernel.name}: DotLanesPair of up to {hi} lanes (at most 4)")
        x_index, x_step = self.at(s.x, s.x_index), self.at(s.x, s.x_stride)
        w, w_index, w_step = self.param(s.w, "int8_t *"), paren(s.w_index.c()), paren(s.w_stride.c())
        x_offset, taps = self.param(s.x_offset, "int32_t"), paren(s.taps.c())
        for name in (s.acc, s.acc1, s.offsets):
            self.ref(name)
        self.lines.append("#if VMCU_DSP")
        self.line(depth, f"if ({'1' if lo == 4 else f'{s.lanes.c()} == 4'}) {{")
        for half in (0, 1) if s.half is None else (s.half,):
            self.line(depth + 1, f"vmcu_mac2x2_row_s8({plus(s.x, paren(x_index))}, {plus(w, w_index)}, {taps}, "
                                 f"{s.shift}, {x_step}, {w_step}, {s.offsets}, {half}, {s.acc}, {s.acc1});")
        self.line(depth, "} else")
        self.lines.append("#endif")
        t, l = self.fresh("t"), self.fresh("l")
        self.line(depth, f"for (int32_t {t} = 0; {t} < {taps}; ++{t}) {{")
        first, step = (0, f"++{l}") if s.half is None else (s.half, f"{l} += 2")
        self.line(depth + 1, f"for (int32_t {l} = {first}; {l} < {paren(s.lanes.c())}; {step}) {{")
        at, tap = f"{paren(x_index)} + {t} * {paren(x_step)} + {l}", f"{w_index} + {t} * {w_step} + {l}"
        self.code(depth + 2, [
            f"const int32_t w_{l} = (int32_t){w}[{tap}];",
            f"{s.acc}[{l}] += ((int32_t){s.x}[{at}] + {x_offset}) * w_{l};",
            f"{s.acc1}[{l}] += ((int32_t){s.x}[{at} + {s.shift} * {paren(x_step)}] + {x_offset}) * w_{l};"])
        self.line(depth + 1, "}")
        self.line(depth, "}")

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

    def lower_InitBias(self, s: InitBias, depth: int) -> None:
        """Every element of the accumulator buffer, those past `count` to 0: a loop of constant
        trip count, so that the compiler sees the whole buffer initialized (no -Wmaybe-uninitialized)."""
        k = self.fresh("k")
        bias = self.param(s.bias, f"{s.ctype} *")
        self.ref(s.acc)
        if self.partial(s.acc):  # every lane set again: no partial sum left over
            self.lines.append("#if VMCU_MVE")
            self.line(depth, f"{s.acc}_s = vdupq_n_s32(0);")
            self.lines.append("#endif")
        width = s.width or self.lookup(s.acc).size
        lo, hi = self.bounds(s.count)
        if width < hi or self.bounds(s.acc_index)[1] + width > self.lookup(s.acc).size:
            raise ValueError(f"kernel {self.kernel.name}: InitBias of up to {hi} values into {s.acc}[{self.lookup(s.acc).size}]")
        if width == 1 and lo >= 1:  # one channel: its bias read once where the channel is fixed
            kind = "int64_t" if s.ctype == "int64_t" else "int32_t"
            self.line(depth, f"{s.acc}[{s.acc_index.c()}] = {self.invariant(bias, kind, s.channel)};")
            return
        vector = self.vector(s.acc) and width == self.lookup(s.acc).size and self.bounds(s.acc_index) == (0, 0)
        at = plus(bias, paren(s.channel.c()))
        if vector and width == 4:  # Helium: the lanes past count load as 0
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
        value = f"{bias}[{_sum(paren(s.channel.c()), k)}]"
        self.line(depth, f"for (int32_t {k} = 0; {k} < {width}; ++{k}) {{")
        self.line(depth + 1, f"{s.acc}[{_sum(paren(s.acc_index.c()), k)}] = "
                             f"{value if lo >= width else f'{k} < {paren(s.count.c())} ? {value} : 0'};")
        self.line(depth, "}")
        if vector:
            self.lines.append("#endif")
        elif self.vector(s.acc):
            raise ValueError(f"kernel {self.kernel.name}: InitBias of part of the lanes of {s.acc}")

    def lower_Requantize(self, s: Requantize, depth: int) -> None:
        """TFLite's requantization of each value, in the cheapest form the layer's constants allow
        (`requant.py`): the one-multiply narrow form, and a plain int8 saturation as the clamp.
        A channel's multiplier and shift are read into locals before its pixels: the int8 stores
        may alias the params, so the compiler would otherwise load them again for every pixel."""
        k, t = self.fresh("k"), self.fresh("t")
        if self.partial(s.acc):  # Helium: the int32 partial sums joined to the int64 lanes first
            self.ref(s.acc)
            self.lines.append("#if VMCU_MVE")
            self.line(depth, f"vmcu_flush4_s64_mve({s.acc}, &{s.acc}_s);")
            self.lines.append("#endif")
        quant = paren(s.quant)
        multiplier = self.param(f"{quant}->requant.multiplier", "int32_t *")
        shift = self.param(f"{quant}->requant.shift", "int8_t *")
        offset = self.param(f"{quant}->output_offset", "int32_t")
        self.ref(s.acc)
        channel = _sum(paren(s.channel.c()), k)
        constants = (f"{multiplier}[{channel}]", f"{shift}[{channel}]")
        one_channel = self.bounds(s.count) == (1, 1)
        if one_channel:  # its constants read once where the channel is fixed
            constants = (self.invariant(multiplier, "int32_t", s.channel), self.invariant(shift, "int32_t", s.channel))
        if s.acc1 is not None:
            self.lower_requantize_pair(s, depth, k, constants, offset, one_channel)
            return
        helium_only = self.requantize_mve(s, depth, multiplier, shift, offset, t)
        pixels_lo, pixels_hi = self.bounds(s.pixels)
        if pixels_hi > 1 and self.bounds(s.count) != (1, 1):
            lines, constants = self.channel_constants(constants)
        else:
            lines = []
        pixel = t if pixels_hi > 1 else "0"

        def strided(index: Ix, stride: Ix) -> str:
            base = _sum(paren(index.c()), k)
            return base if pixel == "0" else f"{base} + {pixel} * {paren(stride.c())}"

        dst = f"{s.dst}[{_sum(paren(self.at(s.dst, s.dst_index)), strided(Const(0), s.dst_stride))}]"
        store = self.requantized(s, dst, f"{s.acc}[{strided(s.acc_index, s.acc_stride)}]", constants, offset)
        if pixel != "0":
            bound = str(pixels_hi) if pixels_lo == pixels_hi else paren(s.pixels.c())
            store = [f"for (int32_t {t} = 0; {t} < {bound}; ++{t}) {{", *store, "}"]
        self.for_lanes(depth, k, s.acc, s.count, *self.bounds(s.count), s.acc_index,
                       size=self.bounds(s.acc_stride)[0] if pixels_hi > 1 else 0)
        self.code(depth + 1, lines + store)
        self.line(depth, "}")
        if helium_only:
            self.lines.append("#endif")

    def lower_requantize_pair(self, s: Requantize, depth: int, k: str, constants: tuple[str, str], offset: str,
                              hoisted: bool) -> None:
        """A Requantize with `acc1` (a depthwise pair): each channel's multiplier and shift read once
        for both pixels, which two loops over the channels would read twice (the int8 stores between
        them may alias the tables); `hoisted`: `constants` are locals read where the one channel is fixed."""
        if s.pixels != Const(1) or self.vector(s.acc) or self.vector(s.acc1):
            raise ValueError(f"kernel {self.kernel.name}: a Requantize of two buffers takes one scalar pixel each")
        self.ref(s.acc1)
        lines, constants = ([], constants) if hoisted else self.channel_constants(constants)
        for acc, at in ((s.acc, s.dst_index), (s.acc1, s.dst_index + s.dst_stride)):
            dst = f"{s.dst}[{_sum(paren(self.at(s.dst, at)), k)}]"
            lines += self.requantized(s, dst, f"{acc}[{_sum(paren(s.acc_index.c()), k)}]", constants, offset)
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

    def requantize_mve(self, s: Requantize, depth: int, multiplier: str, shift: str, offset: str, t: str) -> bool:
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
        channel = paren(s.channel.c())
        constants = f"{plus(multiplier, channel)}, {plus(shift, channel)}, {offset}, {self.clamp_bounds(s)}"
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
            self.lines.append("#if VMCU_MVE")
            self.code(depth, [f"if ({' && '.join(whole) or '1'}) {{",
                              f"vmcu_requantize2x2_mve({acc}, {constants}, {dst}, {s.dst_stride.c()}, {form});",
                              "} else"])
            self.lines.append("#endif")
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
        channel = paren(s.channel.c())
        constants = f"{plus(multiplier, channel)}, {plus(shift, channel)}, {offset}, {self.clamp_bounds(s)}"
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
            self.lines.append("#if VMCU_MVE")
            self.code(depth, [f"if ({' && '.join(whole) or '1'}) {{",
                              f"vmcu_requantize64_{tile}_mve({acc}, {constants}, {dst}, {s.dst_stride.c()});", "} else"])
            self.lines.append("#endif")
        return False

    def lower_AddResidual(self, s: AddResidual, depth: int) -> None:
        """dst = ADD(dst, residual) element by element (operands in the model's order), through
        vmcu_add_s8_run: the ADD's params read once, in the narrow form where they allow it."""
        dst = plus(s.dst, paren(self.at(s.dst, s.dst_index)))
        res = plus(s.residual, paren(self.at(s.residual, s.residual_index)))
        first, second = (res, dst) if s.residual_first else (dst, res)
        self.line(depth, f"vmcu_add_s8_run({s.add}, {first}, 1, {second}, 1, {dst}, {s.count.c()});")


    def lower_Accumulate(self, s: Accumulate, depth: int) -> None:
        """acc[k] += src[k]: on Helium four sums per vector (vmcu_accumulate_s8_mve); int16 values
        (a 16x8 chain's) one at a time on every core."""
        k = self.fresh("k")
        self.ref(s.acc)
        index = paren(self.at(s.src, s.src_index))
        if self.lookup(s.src) is not None and self.lookup(s.src).ctype == "int16_t":
            self.line(depth, f"for (int32_t {k} = 0; {k} < {paren(s.count.c())}; ++{k}) {{")
            self.line(depth + 1, f"{s.acc}[{k}] += {s.src}[{_sum(index, k)}];")
            self.line(depth, "}")
            return
        self.lines.append("#if VMCU_MVE")
        self.line(depth, f"vmcu_accumulate_s8_mve({s.acc}, {plus(s.src, index)}, {s.count.c()});")
        self.lines.append("#else")
        self.line(depth, f"for (int32_t {k} = 0; {k} < {paren(s.count.c())}; ++{k}) {{")
        self.line(depth + 1, f"{s.acc}[{k}] += {s.src}[{_sum(index, k)}];")
        self.line(depth, "}")
        self.lines.append("#endif")

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


@lru_cache(maxsize=None)
def _divisors(n: int) -> tuple[int, ...]:
    """The divisors of n above 1, largest first."""
    small = [d for d in range(1, int(n ** 0.5) + 1) if n % d == 0]
    return tuple(sorted({d for d in small + [n // d for d in small] if d > 1}, reverse=True))


def _lane_accumulator(alloc: RegAlloc, rest) -> bool:
    """Whether the buffer `alloc` declares is a DotLanes accumulator of four or eight int32 lanes that
    only InitBias, DotLanes and Requantize touch in the statements after it (`rest`): on Helium it
    lives in vector registers (eight lanes: the even and the odd channels), stored to the buffer
    only where a scalar statement reads it."""
    if alloc.ctype != "int32_t" or alloc.size not in (4, 8):
        return False
    users = [p.stmt for p in walk(rest) if alloc.name in (getattr(p.stmt, "acc", None), getattr(p.stmt, "acc1", None))]
    return (any(isinstance(u, DotLanes) for u in users)
            and all(isinstance(u, (DotLanes, InitBias, Requantize)) for u in users))


# Products of a 16x8 layer are below 2^22 in magnitude (int16 times int8): 511 of them fit an int32 sum.
_PARTIAL_PRODUCTS = 511


def _wide_lanes(alloc: RegAlloc, rest, scope: dict[str, tuple[int, int]]) -> bool:
    """Whether the buffer `alloc` declares is four int64 lanes of a 16x8 depthwise layer that only
    InitBias, DotLanes (one product per lane each) and Requantize touch in `rest`, with at most
    _PARTIAL_PRODUCTS DotLanes between two Requantizes (every iteration of the loops around them
    counted): on Helium the products are summed exactly in a vector of int32 lanes, which each
    Requantize adds to the int64 lanes (the same sums as TFLite's int64 accumulation)."""
    if alloc.ctype != "int64_t" or alloc.size != 4:
        return False
    users = [p for p in walk(rest) if alloc.name in (getattr(p.stmt, "acc", None), getattr(p.stmt, "acc1", None))]
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
    return products <= _PARTIAL_PRODUCTS


def _simplified(body, scope: dict[str, tuple[int, int]], loops: tuple = ()) -> tuple:
    """`body` with every index expression simplified within the loops around it (`index.simplify`:
    the variables' static ranges and the loops' bound expressions): partial-segment clamps that
    never bite disappear, lane counts become constants. The values are the same for every
    iteration the loops run."""
    out = []
    for stmt in body:
        if isinstance(stmt, Loop):
            for bounded in _pieces(Loop(stmt.var, simplify(stmt.lo, scope, loops), simplify(stmt.hi, scope, loops), (),
                                        stmt.step, stmt.interior)):
                if bounded.lo.bounds(scope)[0] >= bounded.hi.bounds(scope)[1]:
                    continue  # runs no iteration (a line ring's piece outside this part of the row)
                inner = {**scope, bounded.var: loop_range(bounded, scope)}
                within = (*loops, (bounded.var, bounded.lo, greatest(bounded)))
                out.append(replace(bounded, body=_simplified(stmt.body, inner, within)))
        else:
            out.append(replace(stmt, **{name: simplify(value, scope, loops) for name in stmt.__dataclass_fields__
                                        if isinstance(value := getattr(stmt, name), Ix)}))
    return tuple(out)


def _pieces(loop: Loop) -> list[Loop]:
    """The loop, or with an `interior` hint and constant bounds its three parts in order: before,
    inside and after the interior (empty parts dropped). A loop of step s > 1 takes tiles of s
    values: the middle part holds the iterations whose whole tile [v, v + s) is interior, its
    bounds on the loop's own lattice so that every part runs the same values as the loop."""
    if loop.interior is None or not (isinstance(loop.lo, Const) and isinstance(loop.hi, Const)):
        return [replace(loop, interior=None)]
    lo, hi, s = loop.lo.value, loop.hi.value, loop.step
    a, b = (min(max(v, lo), hi) for v in loop.interior)
    first = lo + -(-(a - lo) // s) * s
    last = first + max(0, (b - s - first) // s + 1) * s  # one past the last interior tile's start
    if first >= last:
        return [replace(loop, interior=None)]
    return [replace(loop, lo=Const(p0), hi=Const(p1), interior=None)
            for p0, p1 in ((lo, first), (first, last), (last, hi)) if p0 < p1]


def _sum(index: str, var: str) -> str:
    return var if index in ("0", "(0)") else f"{index} + {var}"


def lower(kernel: Kernel, function_name: str, whole: frozenset[str] = frozenset()) -> str:
    """The C99 function executing `kernel`, named `function_name` (static, the runtime's kernel signature).

    `whole` names the pool roles ("input0", "output", a workspace) that the step's plan keeps in
    one piece, not crossing the end of the pool: their loads are plain pointers and their reads
    and writes plain copies, with no wrap test and no copy buffer on the stack. The others may
    wrap (the default: all of them).

    Two passes: the first finds which declarations the code reads, the second writes the code
    with a (void) for the others (a weight row a one-unit Dot never reads, a load only freed).
    The first also finds the widened tiles only the GEMM assembly reads, which the second widens
    interleaved for it (`lower_gemm.paired_tiles`).
    """
    unknown = set(whole) - set(kernel.tensors) - {w.name for w in kernel.workspaces}
    if unknown:
        raise ValueError(f"kernel {kernel.name}: no pool roles {sorted(unknown)}")
    kernel = replace(kernel, body=_simplified(kernel.body, {}))
    first = _Lowering(kernel, function_name, frozenset(whole))
    first.function()
    return _Lowering(kernel, function_name, frozenset(whole), first.referenced, first.paired_tiles()).function()


def function_block(kernel: Kernel, function: str, note: str = "") -> str:
    """A lowered function (`lower`'s text) with the description's doc (and `note`) as its comment."""
    doc = (kernel.doc or kernel.name).replace("*/", "* /")
    return f"\n/* {doc}{note} */\n{function}"


def render_kernels(kernels: dict[str, Kernel], whole: dict[str, frozenset[str]] | None = None) -> str:
    """A C fragment with the #includes and one function per entry (function name -> kernel), by name;
    `whole` gives the roles lowered as not wrapping, per function name (default: none)."""
    return PRELUDE + "".join(function_block(kernels[name], lower(kernels[name], name, (whole or {}).get(name, frozenset())))
                             for name in sorted(kernels))
