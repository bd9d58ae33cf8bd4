"""Pool access: the statements that read and write the pool, the same C on every instruction set.

Loads that wrap. A RAMLoad without `into` is a pointer into the pool when its bytes do not cross
the end of the pool, else a copy in a stack buffer of `max_bytes` (the description's static
bound of runs * length) with the runs packed (run r at r * length). The description indexes a
loaded pointer as if it pointed into the pool (run r at r * run_stride), so a load that may have
several runs gets a run stride variable `<name>_rs` (run_stride, or length for a copy), and every
index into it is rewritten from `r * run_stride + b` to `r * <name>_rs + b` (`CoreLowering.at`).
Packing keeps the stack to `max_bytes`; copying the whole span with the pool's stride instead
would need (runs - 1) * run_stride + length bytes (a depthwise window row over wide pixels:
kilobytes) to copy a few bytes per run.

Tensors that do not wrap. The plan is static, so the converter knows which of a step's tensors
lie in one piece; `lower(..., whole=...)` reads and writes those through plain pointers
(a pointer to the view's first byte, made once per function; memcpy): no wrap test and no copy
buffer on the stack.

int16 activations (16x8 layers). A RAMLoad of int16_t elements is a `const int16_t *` into the pool only
where its bytes neither wrap nor sit at an odd address (vmcu_span16), else a copy: the C never trusts
the tables or the application's pool for the alignment. A gathered window (a RAMLoad of int16_t `into`
an int16 buffer) has its bytes copied, the wrap handled by vmcu_read.

Streamed rows (PullRow, PushRow) call the application's callbacks where the ring keeps the row.
A mixin of `core.CoreLowering`, whose scope and operand helpers it uses.
"""
from __future__ import annotations

from ..c_text import paren, plus
from ..index import Const
from ..ir import PullRow, PushRow, RAMFree, RAMLoad, RAMStore
from .names import ELEMENT_BYTES, Pointer, u32


class PoolStatements:
    """The lowering of RAMLoad, RAMStore, RAMFree, PullRow and PushRow."""

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
            at = f"({self.flat(view)} + {off})"
            self.line(depth, f"{at}[0] = {s.src}[{self.at(s.src, s.src_index)}];" if single
                      else f"{'memcpy' if local else 'memmove'}({at}, {src}, {u32(s.length)});")
        elif single:
            self.line(depth, f"vmcu_put({view}, {off}, {s.src}[{self.at(s.src, s.src_index)}]);")
        else:
            write = "vmcu_write_buffer" if local else "vmcu_write"
            self.line(depth, f"{write}({view}, {off}, {src}, {u32(s.length)});")

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
        self.line(depth + 1, f"const vmcu_status {status} = {function}(ctx, {view}, {off}, {port}u, {u32(s.row)}, "
                             f"{u32(s.length)});")
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
        size = ELEMENT_BYTES[s.ctype]
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
                byte = f"{self.flat(view)}[{off}]" if whole else f"vmcu_get({view}, {off})"
                self.line(depth, f"{s.into}[{self.at(s.into, s.into_index)}] = {byte};")
                return
            read = (f"memcpy({dst}, {self.flat(view)} + {off}, {u32(s.length)});" if whole
                    else f"vmcu_read({view}, {off}, {dst}, {u32(s.length)});")
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
        self.line(depth + 2, f"memcpy({dst} + {r} * {length}, {self.flat(view)} + {run_at}, (uint32_t){length});"
                  if whole else f"vmcu_read({view}, {run_at}, {dst} + {r} * {length}, (uint32_t){length});")
        self.line(depth + 1, "}")
        self.line(depth, "}")

    def load_elements_into(self, s: RAMLoad, depth: int, view: str, off: str, size: int) -> None:
        """A gather of wider elements (a 16x8 layer's window): each run's bytes copied into the buffer,
        run r at element r * length / size from into_index on."""
        buffer = self.lookup(s.into)
        if buffer is None or ELEMENT_BYTES.get(buffer.ctype) != size:
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
            self.line(depth + 2, f"memcpy({dst}, {self.flat(view)} + {at}, (uint32_t){length});"
                      if whole else f"vmcu_read({view}, {at}, {dst}, (uint32_t){length});")
        else:
            self.line(depth + 1, f"for (int32_t {r} = 0; {r} < {s.runs.c()} && {length} > 0; ++{r}) {{")
            run_at = f"{at} + (uint32_t)({r} * {paren(s.run_stride.c())})"
            self.line(depth + 2, f"memcpy({dst} + {r} * {length}, {self.flat(view)} + {run_at}, (uint32_t){length});"
                      if whole else f"vmcu_read({view}, {run_at}, {dst} + {r} * {length}, (uint32_t){length});")
        self.line(depth + 1, "}")
        self.line(depth, "}")

    def load_pointer(self, s: RAMLoad, depth: int) -> None:
        """A pointer into the pool, or a packed copy when the bytes cross the end of the pool."""
        if s.ctype != "int8_t":
            self.load_elements(s, depth)
            return
        if s.tensor in self.whole:
            self.declare(s.name, Pointer("load"))
            self.line(depth, f"/* RAMLoad {s.name}: {s.tensor}, a pointer into the pool (it does not wrap) */")
            self.line(depth, f"const int8_t *{s.name} = {self.flat(self.view(s.tensor))} + "
                             f"{self.u32_offset(s.tensor, s.offset)};")
            self.unused(depth, s.name)
            return
        if s.max_bytes <= 0:
            raise ValueError(f"kernel {self.kernel.name}: RAMLoad {s.name} has no max_bytes for its copy")
        view, off = self.view(s.tensor), self.u32_offset(s.tensor, s.offset)
        n = s.name
        strided = self.bounds(s.runs)[1] > 1 or not (s.runs == Const(1))
        helpers = (f"{n}_copy", f"{n}_at") + ((f"{n}_runs", f"{n}_len", f"{n}_rs") if strided else ())
        self.declare(n, Pointer("load", s.run_stride if strided else None), helpers)
        self.line(depth, f"/* RAMLoad {n}: {s.tensor}, a pointer into the pool, or a copy where it wraps */")
        self.line(depth, f"int8_t {n}_copy[{s.max_bytes}];")
        self.line(depth, f"const uint32_t {n}_at = {off};")
        if not strided:
            self.span_or_copy(depth, n, "int8_t", view, u32(s.length))
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
        size = ELEMENT_BYTES[s.ctype]
        self.declare(n, Pointer("load", ctype=s.ctype), (f"{n}_copy", f"{n}_at"))
        self.line(depth, f"/* RAMLoad {n}: {s.tensor}, {s.ctype} elements in the pool, or a copy where they wrap */")
        self.line(depth, f"{s.ctype} {n}_copy[{max(1, -(-s.max_bytes // size))}];")
        self.line(depth, f"const uint32_t {n}_at = {off};")
        self.span_or_copy(depth, n, s.ctype, view, u32(s.length))

    def span_or_copy(self, depth: int, n: str, ctype: str, view: str, length: str) -> None:
        """The pointer `n` to `length` bytes at `<n>_at` in the pool where they neither wrap nor (for
        wider elements) lie misaligned, else `<n>_copy` filled from the pool: one run's form of
        `runs_or_copy`, the same C for int8 and int16 but for the span check and the copy's type."""
        span, into = ("vmcu_span", f"{n}_copy") if ctype == "int8_t" else ("vmcu_span16", f"(int8_t *)(void *){n}_copy")
        self.line(depth, f"const {ctype} *{n} = {span}({view}, {n}_at, {length});")
        self.line(depth, f"if ({n} == 0) {{")
        self.line(depth + 1, f'VMCU_ON_COPY("{n}");')
        self.line(depth + 1, f"vmcu_read({view}, {n}_at, {into}, {length});")
        self.line(depth + 1, f"{n} = {n}_copy;")
        self.line(depth, "}")
        self.unused(depth, n)

    def load_element_runs(self, s: RAMLoad, depth: int, view: str, off: str) -> None:
        """Runs of wider elements (a 16x8 depthwise window row): a pointer into the pool where the
        span does not wrap and lies aligned (the runs `run_stride` bytes apart), else the runs packed
        into a copy; the run stride in elements, `<name>_rs`, says which."""
        size = ELEMENT_BYTES[s.ctype]
        if not isinstance(s.run_stride, Const) or s.run_stride.value % size:
            raise NotImplementedError(f"kernel {self.kernel.name}: RAMLoad {s.name}: runs of {s.ctype} a constant "
                                      "number of elements apart")
        n, stride = s.name, s.run_stride.value
        self.declare(n, Pointer("load", Const(stride // size), ctype=s.ctype),
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
