"""Executes a kernel description's arithmetic: the values a step stores, computed from the bytes it loads.

`kernel_run.py` checks a description's memory traffic; this module runs the rest of it, so that
the reference interpreter certifies the kernel the C executes and not a formula beside it:

- every RAMLoad returns what the simulated pool holds at the loaded addresses at the time the
  kernel loads them (the bytes there before the step, or those a store of this step put there
  last: a ring's row, a plane's copy), through the pool's physical addresses;
- FlashLoad, InitBias, Requantize and AddResidual read the constants as the generated C holds
  them (`flash.py`), and compute with the C runtime's integer helpers (`c_arith.py`);
- Widen, Dot, DotLanes, DotLanesPair, DotRow, Accumulate and Average compute what their C computes;
- int16 data (a 16x8 layer's): a RAMLoad of `ctype` int16_t reads whole little-endian elements (its
  pointer's indexes count elements, its offsets and lengths stay bytes), a RAMStore of an int16
  buffer writes each element's two bytes; int64 accumulators sum exactly, and the wide Requantize
  is the C's 64-bit form (`c_arith.requantize64`);
- RAMStore writes the values its buffer holds, which the pool then holds; PullRow the row the
  application serves (`rows`: the protocol's checks, `reference/row_stream.py`); PushRow hands
  the application the row the pool holds when it runs.

Statements run one at a time in the description's order, each over all its instances at once
(numpy over the loop variables, `schedule.enter`): a RegAlloc is one buffer per instance of the
loops around it, and a statement reads the buffer of the loop instance it runs in. That is the
C's order wherever values flow forward through the body and accumulators only add, which is
how the descriptions are written; the executor refuses (ExecutionError) a description where a
statement would need values from a later iteration (a buffer written again after another
statement read it, an element written twice by one statement, a pool byte loaded before the
statement storing it has run).

A read of a buffer element nothing wrote, of a loaded pointer outside the bytes its RAMLoad
loaded, or outside a buffer or a flash array, is a wrong description: the C would read
undefined bytes. It is reported as a `DescriptionError` naming the statement and its loop
variables.
"""
from __future__ import annotations

import numpy as np

from vmcu_tflite.kernels.ir import (Accumulate, AddResidual, Average, Broadcast, Dot, DotLanes, DotLanesPair, DotRow,
                                    FlashLoad, InitBias, Kernel, Loop, PullRow, PushRow, RAMFree, RAMLoad, RAMStore,
                                    RegAlloc, Requantize, Widen)
from vmcu_tflite.kernels.schedule import enter

from . import c_arith
from .flash import INT_TYPES, FlashImage
from .kernel_state import (Buffer, DescriptionError, ExecutionError, FlashPointer, Frame, Loaded, Statement, Word,
                           as_ctype, chunks, expand, packed_positions)
from .pool_history import UNSET, PoolHistory


class Executor:
    """Runs one step's description (after `kernel_run` checked its memory traffic)."""

    def __init__(self, kernel: Kernel, image: FlashImage, history: PoolHistory,
                 loads: dict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray]],
                 stores: dict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray]], rows=None) -> None:
        """`loads` and `stores`: per statement position, each byte's (pool address, time,
        instance) then (logical byte, time, instance), in the order `kernel_run._Events.bytes`
        gives them. `rows`: the streamed inputs' rows (`row_stream.RowSource`), for PullRow."""
        self.kernel, self.image, self.history, self.rows = kernel, image, history, rows
        self.loads, self.stores = loads, stores
        self.frames: dict[tuple, Frame] = {(): Frame({"__count__": np.int64(1)}, None, None, 0)}
        self.stored: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}  # tensor -> (bytes, values, stmt id)
        self.pushed: list[tuple[int, int, int, np.ndarray]] = []  # PushRow: (time, output, row, bytes)
        self.statements: list[tuple[object, Frame]] = []  # stmt id -> (stmt, frame), for messages

    def run(self) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Execute; per pool tensor stored, (logical bytes, values, (statement, instance) ids)."""
        self._body(self.kernel.body, (), (), {})
        return self.stored

    def describe(self, stmt_id: int, instance: int) -> str:
        """"RAMStore of output at (y=3, x=4, q=0)": a statement instance, for messages."""
        stmt, frame = self.statements[stmt_id]
        loops = ", ".join(f"{var}={int(values[instance])}" for var, values in frame.env.items() if var != "__count__")
        target = getattr(stmt, "tensor", None) or getattr(stmt, "dst", None) or getattr(stmt, "acc", None)
        return f"{type(stmt).__name__}" + (f" of {target}" if target else "") + (f" at ({loops})" if loops else "")

    # -- structure ------------------------------------------------------------------------------

    def _frame(self, path: tuple, loops: tuple) -> Frame:
        if path not in self.frames:
            up = self._frame(path[:-1], loops[:-1])
            env, parent = enter(loops[-1], up.env)
            self.frames[path] = Frame(env, parent, up, len(path))
        return self.frames[path]

    def _body(self, body, path: tuple, loops: tuple, scope: dict) -> None:
        scope = dict(scope)  # declarations in this body shadow the enclosing ones, as C blocks do
        for k, stmt in enumerate(body):
            if isinstance(stmt, Loop):
                self._body(stmt.body, path + (k,), loops + (stmt,), scope)
                continue
            frame = self._frame(path, loops)
            self.statements.append((stmt, frame))
            _Semantics(self, stmt, path + (k,), frame, scope, len(self.statements) - 1).run()


def _elements(which: np.ndarray, packed: np.ndarray, values: np.ndarray, size: int, ctype: str):
    """Loaded bytes (instance, position, byte value) as little-endian elements of `size` bytes."""
    first = packed % size == 0
    value = np.zeros(int(first.sum()), np.int64)
    for b in range(size):
        value |= (values[np.flatnonzero(first) + b] & 0xFF) << (8 * b)
    return which[first], packed[first] // size, as_ctype(value, ctype)


class _Semantics(Statement):
    """What each intrinsic computes, over all the instances of one statement."""

    # -- declarations ---------------------------------------------------------------------------

    def _RegAlloc(self, s: RegAlloc) -> None:
        fill = UNSET if s.fill is None else as_ctype(np.int64(self.integer(s.fill)), s.ctype)
        self.scope[s.name] = Buffer(s.name, s.ctype, self.frame, np.full((self.frame.count, s.size), fill, np.int64))

    def _Broadcast(self, s: Broadcast) -> None:
        self.scope[s.name] = Word(int(np.int16(self.integer(s.value))))

    def _FlashLoad(self, s: FlashLoad) -> None:
        array = self.executor.image.array(s.array, "int16_t" if s.lane_order else s.ctype)
        if not s.into:
            self.scope[s.name] = FlashPointer(s.name, self.frame, array, self.value(s.offset))
            return
        which, i = expand(np.full(self.frame.count, s.count * s.lanes, np.int64))
        lane, i = divmod(i, s.count)
        offset = self.value(s.offset)
        at = _tap(offset[which] + lane + i * s.stride, s.lane_order)  # from the array's start
        taps = self.read(FlashPointer(s.name, self.frame, array, np.zeros_like(offset)), which, at, "a tap")
        self.write(s.name, which, lane * s.count + i, taps)

    # -- the pool -------------------------------------------------------------------------------

    def _RAMLoad(self, s: RAMLoad) -> None:
        address, time, which = self.executor.loads[self.position]
        values = self.executor.history.read(address, time)
        self.check(which, values == UNSET, lambda k: "loads a pool byte whose store has not run yet: an order this "
                                                    "executor does not reproduce", ExecutionError)
        packed = packed_positions(which, self.frame.count)
        length, runs = self.value(s.length), self.value(s.runs)
        total = np.maximum(length, 0) * np.maximum(runs, 0)
        if s.max_bytes:
            instances = np.arange(self.frame.count)
            self.check(instances, total > s.max_bytes,
                       lambda n: f"loads {int(total[n])} bytes into a copy of {s.max_bytes} (its max_bytes)")
        stride = self.value(s.run_stride)
        size = np.dtype(INT_TYPES[s.ctype]).itemsize
        if size > 1:  # whole little-endian elements: indexes count elements
            self.check(np.arange(self.frame.count), (length % size != 0) | (stride % size != 0),
                       lambda n: f"loads {int(length[n])}-byte runs {int(stride[n])} apart as {s.ctype} elements")
            which, packed, values = _elements(which, packed, values, size, s.ctype)
            length, stride, total = length // size, stride // size, total // size
        if s.into is not None:
            self.write(s.into, which, self.value(s.into_index)[which] + packed, values)
            return
        loaded = np.full((self.frame.count, max(1, int(total.max(initial=0)))), UNSET, np.int64)
        loaded[which, packed] = values
        self.scope[s.name] = Loaded(s.name, self.frame, loaded, length, runs, stride)

    def _PushRow(self, s: PushRow) -> None:
        """The row as the pool holds it when the kernel hands it over is what the application
        gets: (time, output, row, bytes) per instance, given to the sink in time order."""
        address, time, which = self.executor.loads[self.position]
        values = self.executor.history.read(address, time)
        self.check(which, values == UNSET, lambda k: "pushes a pool byte whose store has not run yet",
                   ExecutionError)
        rows = self.value(s.row)
        for n in np.unique(which):
            mine = which == n
            self.executor.pushed.append((int(time[mine][0]), s.output, int(rows[n]), values[mine]))

    def _RAMStore(self, s: RAMStore) -> None:
        byte, time, which = self.executor.stores[self.position]
        decl = self.lookup(s.src)
        ctype = getattr(decl, "ctype", "int8_t")
        if ctype not in ("int8_t", "int16_t"):
            raise DescriptionError(f"RAMStore of {s.tensor} copies {s.src}, a {ctype} buffer, into the pool")
        size = np.dtype(INT_TYPES[ctype]).itemsize
        packed = packed_positions(which, self.frame.count)
        if size > 1:
            length = self.value(s.length)
            self.check(np.arange(self.frame.count), length % size != 0,
                       lambda n: f"stores {int(length[n])} bytes of {ctype} elements")
        values = self.read(s.src, which, self.value(s.src_index)[which] + packed // size, "the stored")
        if size > 1:  # the element's bytes, little-endian, as the C's copy writes them
            values = as_ctype(values >> (8 * (packed % size)), "int8_t")
        self._keep(s.tensor, byte, which, values)

    def _PullRow(self, s: PullRow) -> None:
        """The rows the application serves, in the order the kernel pulls them (its instances run
        in loop order): the source checks each is pulled once, in increasing order."""
        byte, time, which = self.executor.stores[self.position]
        if self.executor.rows is None:
            raise ExecutionError(f"PullRow of {s.tensor}: the run has no streamed input {s.input}")
        rows, length = self.value(s.row), self.value(s.length)
        served = [self.executor.rows.pull(s.input, int(r), int(n)) for r, n in zip(rows, length)]
        values = np.concatenate(served).astype(np.int64) if served else np.zeros(0, np.int64)
        starts = np.cumsum(length) - length
        values = values[starts[which] + packed_positions(which, self.frame.count)]
        self._keep(s.tensor, byte, which, values)

    def _keep(self, tensor: str, byte: np.ndarray, which: np.ndarray, values: np.ndarray) -> None:
        """What a store put in the pool: for later loads of this step (the history) and for the
        step's output, with the statement instance that stored each byte."""
        self.executor.history.record(self.position, values)
        ids = self.ident * (1 << 40) + which
        previous = self.executor.stored.get(tensor)
        if previous is not None:
            byte, values, ids = (np.concatenate(pair) for pair in zip(previous, (byte, values, ids)))
        self.executor.stored[tensor] = (byte, values, ids)

    def _RAMFree(self, s: RAMFree) -> None:
        """Nothing to compute: `kernel_run` proves the kernel never reads these bytes again."""

    # -- arithmetic -----------------------------------------------------------------------------

    def _Widen(self, s: Widen) -> None:
        offset = self.offset(s.offsets, s.x_offset)
        which, i = expand(self.value(s.length))
        x = self.read(s.src, which, self.value(s.src_index)[which] + i, "a widened")
        self.write(s.dst, which, self.value(s.dst_index)[which] + i, x + offset)

    def _Dot(self, s: Dot) -> None:
        """acc[acc_index + G p + k] += sum_i (x[x_index + p * x_stride + i] + offset) * w_k[w_index + i], G the
        number of weight rows, for the `count` rows used; weight i at w_k[w_index + 8 (i // 4) + i % 4] where
        the rows are `paired` (interleaved word by word with their pair's other row)."""
        widened = getattr(self.lookup(s.x), "ctype", "int8_t") == "int16_t"  # the offset is in the values
        offset = 0 if widened else self.offset(s.offsets, s.x_offset)
        length, count, pixels = self.value(s.length), self.value(s.count), self.value(s.pixels)
        x_index, w_index, acc_index = self.value(s.x_index), self.value(s.w_index), self.value(s.acc_index)
        x_stride = self.value(s.x_stride)
        self.check(np.arange(self.frame.count), count > len(s.weights), lambda n: f"uses more weight rows than {s.weights}")
        for p in range(int(pixels.max(initial=0))):
            for k, weights in enumerate(s.weights):
                used = np.flatnonzero((pixels > p) & (count > k))
                for part in chunks(length[used]):
                    n = used[part]
                    local, i = expand(length[n])
                    which = n[local]
                    x = self.read(s.x, which, x_index[which] + p * x_stride[which] + i, "an input")
                    at = 8 * (i // 4) + i % 4 if s.paired else i
                    w = self.read(weights, which, w_index[which] + at, "a weight")
                    products = np.bincount(local, weights=((x + offset) * w).astype(np.float64), minlength=len(n))
                    self.write(s.acc, n, acc_index[n] + len(s.weights) * p + k, np.rint(products).astype(np.int64),
                               add=True)

    def _DotLanes(self, s: DotLanes) -> None:
        """acc[l] += (x[x_index + l] + offset) * w[w_index + l], l < lanes."""
        offset = self.offset(s.offsets, s.x_offset)
        w = s.w if s.w in self.scope else self.flash(s.w, "int16_t" if s.lane_order else "int8_t")
        which, lane = expand(self.value(s.lanes))
        x = self.read(s.x, which, self.value(s.x_index)[which] + lane, "an input")
        weights = self.read(w, which, _tap(self.value(s.w_index)[which] + lane, s.lane_order), "a weight")
        self.write(s.acc, which, lane, (x + offset) * weights, add=True)

    def _DotLanesPair(self, s: DotLanesPair) -> None:
        """acc[l] += (x[x_index + t * x_stride + l] + offset) * w[w_index + t * w_stride + l] and acc1[l] +=
        (x[x_index + (t + shift) * x_stride + l] + offset) * w[...], t < taps, l < lanes in the half's lanes
        {half, half + 2} (every lane for half None); with acc2, acc2[l] the same from column t + 2 shift."""
        offset = self.offset(s.offsets, s.x_offset)
        w = self.flash(s.w, "int16_t" if s.lane_order else "int8_t")
        count = self.value(s.lanes)
        if s.half is None:
            lanes = np.maximum(count, 0)
        else:
            lanes = (count > s.half).astype(np.int64) + (count > s.half + 2)
        which, i = expand(np.maximum(self.value(s.taps), 0) * lanes)
        tap, k = i // np.maximum(lanes[which], 1), i % np.maximum(lanes[which], 1)
        lane = k if s.half is None else s.half + 2 * k
        x_at = self.value(s.x_index)[which] + tap * self.value(s.x_stride)[which] + lane
        weights = self.read(w, which, _tap(self.value(s.w_index)[which] + tap * self.value(s.w_stride)[which] + lane,
                                           s.lane_order), "a weight")
        for pixel, acc in enumerate((s.acc, s.acc1) if s.acc2 is None else (s.acc, s.acc1, s.acc2)):
            x = self.read(s.x, which, x_at + pixel * s.shift * self.value(s.x_stride)[which], "an input")
            self.write(acc, which, lane, (x + offset) * weights, add=True)

    def _DotRow(self, s: DotRow) -> None:
        """acc[channels * p + l] += sum_i (x[x_index + channels * (p + i) + l] + offset) * w[w_index + l *
        w_pitch + i] for the lanes l < channels and pixels p < pixels; with acc1 (one channel), also
        acc1[0] the same over the next pixel."""
        offset = self.offset(s.offsets, s.x_offset)
        which, i = expand(self.value(s.length) * s.channels)
        lane, i = divmod(i, self.value(s.length)[which]) if s.channels > 1 else (np.zeros_like(i), i)
        weights = self.read(s.w, which, self.value(s.w_index)[which] + lane * self.value(s.w_pitch)[which] + i,
                            "a tap")
        x_at = self.value(s.x_index)[which] + s.channels * i + lane
        for p in range(s.pixels):
            x = self.read(s.x, which, x_at + s.channels * p, "an input")
            self.write(s.acc, which, s.channels * p + lane, (x + offset) * weights, add=True)
        if s.acc1:
            x = self.read(s.x, which, x_at + s.channels, "an input")
            self.write(s.acc1, which, lane, (x + offset) * weights, add=True)

    def _InitBias(self, s: InitBias) -> None:
        """acc[acc_index + k] = bias[channel + k] for k < count, 0 for count <= k < width."""
        width = s.width or self.lookup(s.acc).size
        which, k = expand(np.full(self.frame.count, width, np.int64))
        used = k < self.value(s.count)[which]
        values = np.zeros(len(k), np.int64)
        values[used] = self.read(self.flash(s.bias, s.ctype), which[used], (self.value(s.channel)[which] + k)[used],
                                 "a bias")
        self.write(s.acc, which, self.value(s.acc_index)[which] + k, values)

    def _Requantize(self, s: Requantize) -> None:
        """dst[dst_index + k + t * dst_stride] = requantized acc[acc_index + k + t * acc_stride], in the
        form the C takes for the layer (`requant.py`), clamped; with `acc1`, also dst[dst_index +
        dst_stride + k] = requantized acc1[acc_index + k], with the same constants (and acc2's two strides on)."""
        quant = f"({s.quant})"
        offset = self.integer(f"{quant}->output_offset")
        lo, hi = ((-128, 127) if s.form.saturate else
                  (self.integer(f"{quant}->requant.act_min"), self.integer(f"{quant}->requant.act_max")))
        count, pixels = self.value(s.count), self.value(s.pixels)
        which, j = expand(count * pixels)
        k, t = j % count[which], j // count[which]
        channel = self.value(s.channel)[which] + k
        # the tables as the layer's form encodes them (requant.tables)
        m = self.read(self.flash(f"{quant}->requant.multiplier", "int32_t"), which, channel, "a multiplier")
        r = self.read(self.flash(f"{quant}->requant.shift", "int8_t"), which, channel, "a shift")
        dst_index, dst_stride = self.value(s.dst_index)[which], self.value(s.dst_stride)[which]
        acc_index = self.value(s.acc_index)[which] + k
        sources = [(s.acc, acc_index + t * self.value(s.acc_stride)[which], dst_index + k + t * dst_stride)]
        for pixel, acc in enumerate((s.acc1, s.acc2), 1):
            if acc is not None:
                sources.append((acc, acc_index, dst_index + pixel * dst_stride + k))
        for acc_name, acc_at, dst_at in sources:
            acc = self.read(acc_name, which, acc_at, "an accumulator")
            if s.form.wide:
                value = c_arith.requantize64(acc, m, r) + offset
            elif s.form.narrow:
                value = c_arith.requantize_narrow(acc, m, r, offset)
            elif s.form.shifted:
                value = c_arith.requantize_shifted(acc, m, r, offset)
            else:
                value = c_arith.requantize(acc, m, r) + offset
            self.write(s.dst, which, dst_at, c_arith.clamp(value, lo, hi))

    def _AddResidual(self, s: AddResidual) -> None:
        """dst[dst_index + i] = ADD(residual[residual_index + i], dst[...]) (operands in the model's order)."""
        add = self.executor.image.evaluate(s.add)
        which, i = expand(self.value(s.count))
        index = self.value(s.dst_index)[which] + i
        mine = self.read(s.dst, which, index, "a summand")
        residual = self.read(s.residual, which, self.value(s.residual_index)[which] + i, "a residual")
        first, second = (residual, mine) if s.residual_first else (mine, residual)
        self.write(s.dst, which, index, c_arith.add_s8_run(add, first, second))

    def _Accumulate(self, s: Accumulate) -> None:
        which, k = expand(self.value(s.count))
        values = self.read(s.src, which, self.value(s.src_index)[which] + k, "a summed")
        self.write(s.acc, which, k, values, add=True)

    def _Average(self, s: Average) -> None:
        which, k = expand(self.value(s.count))
        sums = self.read(s.acc, which, k, "a sum")
        self.write(s.dst, which, k, c_arith.average(sums, s.divisor, s.act_min, s.act_max))


def _tap(index: np.ndarray, lane_order: bool) -> np.ndarray:
    """Where a depthwise filter holds the tap the int8 filter holds at `index`: there, or in a
    lane-ordered filter (kernels/ir.py) at the index with its two lowest bits swapped."""
    if not lane_order:
        return index
    return index ^ (((index ^ (index >> 1)) & 1) * 3)
