"""Executes a kernel description's arithmetic: the values a step stores, computed from the bytes it loads.

`kernel_run.py` checks a description's memory traffic; this module runs the rest of it, so that
the reference interpreter certifies the kernel the C executes and not a formula beside it:

- every RAMLoad returns what the simulated pool holds at the loaded addresses at the time the
  kernel loads them (the bytes there before the step, or those a store of this step put there
  last: a ring's row, a plane's copy), through the pool's physical addresses;
- FlashLoad, InitBias, Requantize and AddResidual read the constants as the generated C holds
  them (`flash.py`), and compute with the C runtime's integer helpers (`c_arith.py`);
- Widen, Dot, DotLanes, DotRow, Accumulate and Average compute what their C computes;
- RAMStore writes the values its buffer holds, which the pool then holds.

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

from dataclasses import dataclass, field
from typing import Iterator

import numpy as np

from vmcu_tflite.kernels.ir import (Accumulate, AddResidual, Average, Broadcast, Dot, DotLanes, DotRow, FlashLoad,
                                    InitBias, Kernel, Loop, RAMFree, RAMLoad, RAMStore, RegAlloc, Requantize, Widen)
from vmcu_tflite.kernels.schedule import enter

from . import c_arith
from .flash import INT_TYPES, FlashImage

UNSET = np.int64(-(1 << 62))  # an element no statement has written (or a byte no load has loaded)
CHUNK = 1 << 22  # elements a vectorized reduction handles at once


class DescriptionError(Exception):
    """The description reads values that are undefined in its C (uninitialized, not loaded, out of bounds)."""


class ExecutionError(Exception):
    """The description needs an order of execution this executor does not reproduce (a bug to fix here)."""


@dataclass
class Frame:
    """The instances of one loop nest: loop variables, and each instance's enclosing instance."""

    env: dict[str, np.ndarray]
    parent: np.ndarray | None
    up: "Frame | None"
    depth: int
    _ancestors: dict[int, np.ndarray] = field(default_factory=dict)

    @property
    def count(self) -> int:
        return int(self.env["__count__"])

    def ancestor(self, depth: int) -> np.ndarray:
        """For each instance, the index of the instance of the enclosing frame at `depth` it runs in."""
        if depth == self.depth:
            return np.arange(self.count, dtype=np.int64)
        if depth not in self._ancestors:
            self._ancestors[depth] = self.up.ancestor(depth)[self.parent]
        return self._ancestors[depth]

    def value(self, expr) -> np.ndarray:
        return np.broadcast_to(np.asarray(expr.evaluate(self.env), dtype=np.int64), (self.count,))


@dataclass
class Buffer:
    """A RegAlloc: `size` elements of `ctype` per instance of its frame."""

    name: str
    ctype: str
    frame: Frame
    values: np.ndarray  # [instances, size]
    readers: set = field(default_factory=set)  # positions of the statements that read it

    @property
    def size(self) -> int:
        return self.values.shape[1]


@dataclass
class Loaded:
    """A RAMLoad's pointer: `runs` runs of `length` bytes, `stride` apart in its index space,
    kept packed (run r at r * length), as the C's copy keeps them."""

    name: str
    frame: Frame
    values: np.ndarray  # [instances, max runs * length]
    length: np.ndarray
    runs: np.ndarray
    stride: np.ndarray


@dataclass
class FlashPointer:
    """A pointer into a constant array: element i of instance n is array[base[n] + i]."""

    name: str
    frame: Frame | None
    array: np.ndarray
    base: np.ndarray | int


@dataclass
class Word:
    """A Broadcast: the 16-bit value both halves of the word hold."""

    value: int


class PoolHistory:
    """What each pool address holds during the step: its byte before the step, then each store's
    byte from the store's time on. Stores' addresses and times come from the schedule up front;
    their values are recorded as the statements run."""

    def __init__(self, before: np.ndarray, stores: dict[tuple, tuple[np.ndarray, np.ndarray]]) -> None:
        self.before = before.astype(np.int64)
        keys = list(stores)
        addresses = np.concatenate([stores[k][0] for k in keys] or [np.zeros(0, np.int64)])
        times = np.concatenate([stores[k][1] for k in keys] or [np.zeros(0, np.int64)])
        order = np.lexsort((times, addresses))
        self.address, self.time = addresses[order], times[order]
        self.values = np.full(len(order), UNSET, np.int64)
        slot = np.empty(len(order), np.int64)
        slot[order] = np.arange(len(order))
        sizes = np.cumsum([0] + [len(stores[k][0]) for k in keys])
        self.slots = {k: slot[sizes[i]:sizes[i + 1]] for i, k in enumerate(keys)}
        cells = np.arange(len(before))
        self.start = np.searchsorted(self.address, cells, side="left")  # each address's stores, in time order
        self.end = np.searchsorted(self.address, cells, side="right")
        self.first = np.full(len(before), np.iinfo(np.int64).max, np.int64)  # the time of each address's first store
        stored = self.end > self.start
        self.first[stored] = self.time[self.start[stored]]

    def record(self, key: tuple, values: np.ndarray) -> None:
        self.values[self.slots[key]] = values

    def read(self, address: np.ndarray, time: np.ndarray) -> np.ndarray:
        """The bytes at `address` at `time`; UNSET where the last store there has not run yet."""
        out = self.before[address].copy()
        later = np.flatnonzero(time > self.first[address])
        if later.size:
            a, t = address[later], time[later]
            lo, hi = self.start[a], self.end[a]
            while True:  # the last store at that address before t: bisection, all queries at once
                active = lo < hi
                if not active.any():
                    break
                mid = np.minimum((lo + hi) // 2, len(self.time) - 1)
                right = active & (self.time[mid] < t)
                lo = np.where(right, mid + 1, lo)
                hi = np.where(active & ~right, mid, hi)
            out[later] = self.values[lo - 1]
        return out


def _expand(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(which, i): for each instance n, the pairs (n, i) with i < lengths[n], in order."""
    lengths = np.maximum(lengths, 0)
    which = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    return which, np.arange(len(which), dtype=np.int64) - np.repeat(np.cumsum(lengths) - lengths, lengths)


def _chunks(lengths: np.ndarray) -> Iterator[np.ndarray]:
    """Instance indices in groups whose lengths add up to at most about CHUNK elements."""
    ends = np.cumsum(np.maximum(lengths, 0))
    start = 0
    while start < len(lengths):
        stop = max(start + 1, int(np.searchsorted(ends, (ends[start - 1] if start else 0) + CHUNK, side="right")))
        yield np.arange(start, min(stop, len(lengths)))
        start = stop


def _packed(which: np.ndarray, count: int) -> np.ndarray:
    """Each element's position among those of its instance (`which` ascending)."""
    per = np.bincount(which, minlength=count)
    return np.arange(len(which), dtype=np.int64) - np.repeat(np.cumsum(per) - per, per)


def _repeats(flat: np.ndarray, size: int) -> bool:
    """Whether an index occurs twice in `flat` (indices below `size`)."""
    if len(flat) * 4 >= size:
        return bool(len(flat)) and int(np.bincount(flat, minlength=size).max()) > 1
    return len(np.unique(flat)) != len(flat)


def _as_ctype(values: np.ndarray, ctype: str) -> np.ndarray:
    """What a C variable of `ctype` holds after the assignment (integer conversion wraps)."""
    return np.asarray(values, np.int64).astype(INT_TYPES[ctype]).astype(np.int64)


class Executor:
    """Runs one step's description (after `kernel_run` checked its memory traffic)."""

    def __init__(self, kernel: Kernel, image: FlashImage, history: PoolHistory,
                 loads: dict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray]],
                 stores: dict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray]]) -> None:
        """`loads` and `stores`: per statement position, each byte's (pool address, time,
        instance) then (logical byte, time, instance), in the order `kernel_run._Events.bytes`
        gives them."""
        self.kernel, self.image, self.history = kernel, image, history
        self.loads, self.stores = loads, stores
        self.frames: dict[tuple, Frame] = {(): Frame({"__count__": np.int64(1)}, None, None, 0)}
        self.stored: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}  # tensor -> (bytes, values, stmt id)
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
            _Statement(self, stmt, path + (k,), frame, scope, len(self.statements) - 1).run()


class _Statement:
    """One statement executed over all its instances."""

    def __init__(self, executor: Executor, stmt, position: tuple, frame: Frame, scope: dict, ident: int) -> None:
        self.x, self.stmt, self.position, self.frame, self.scope, self.ident = executor, stmt, position, frame, scope, ident

    def run(self) -> None:
        getattr(self, f"_{type(self.stmt).__name__}")(self.stmt)

    # -- helpers --------------------------------------------------------------------------------

    def fail(self, instance: int, why: str, cls=DescriptionError):
        raise cls(f"{self.x.describe(self.ident, int(instance))} {why}")

    def value(self, expr) -> np.ndarray:
        return self.frame.value(expr)

    def lookup(self, name: str):
        if name not in self.scope:
            raise ExecutionError(f"{type(self.stmt).__name__} names {name!r}, which no statement declared")
        return self.scope[name]

    def owner(self, decl) -> np.ndarray:
        """For each instance of this statement, the instance of `decl`'s frame it runs in."""
        return self.frame.ancestor(decl.frame.depth) if decl.frame is not None else np.zeros(self.frame.count, np.int64)

    def read(self, name: str, which: np.ndarray, index: np.ndarray, what: str) -> np.ndarray:
        """Elements `index` of `name` for the statement instances `which` (same shapes)."""
        decl = self.lookup(name) if isinstance(name, str) else name
        inst = self.owner(decl)[which]
        if isinstance(decl, FlashPointer):
            at = (decl.base[inst] if isinstance(decl.base, np.ndarray) else decl.base) + index
            bad = np.flatnonzero((at < 0) | (at >= len(decl.array)))
            if bad.size:
                self.fail(which[bad[0]], f"reads {what} element {int(at[bad[0]])} of a flash array of {len(decl.array)}")
            return decl.array[at].astype(np.int64)
        if isinstance(decl, Loaded):
            stride, length, runs = decl.stride[inst], decl.length[inst], decl.runs[inst]
            run = np.where(stride > 0, index // np.maximum(stride, 1), 0)
            byte = index - run * stride
            bad = np.flatnonzero((index < 0) | (run >= runs) | (byte < 0) | (byte >= length))
            if bad.size:
                self.fail(which[bad[0]], f"reads {what} byte {int(index[bad[0]])} of {decl.name}, which its RAMLoad "
                                         f"did not load ({int(runs[bad[0]])} runs of {int(length[bad[0]])} bytes)")
            return decl.values[inst, run * length + byte]
        if not isinstance(decl, Buffer):
            raise ExecutionError(f"{type(self.stmt).__name__} reads {name!r}, which is not a buffer")
        bad = np.flatnonzero((index < 0) | (index >= decl.size))
        if bad.size:
            self.fail(which[bad[0]], f"reads {what} element {int(index[bad[0]])} of {decl.name}[{decl.size}]")
        values = decl.values[inst, index]
        unset = np.flatnonzero(values == UNSET)
        if unset.size:
            self.fail(which[unset[0]], f"reads {what} element {int(index[unset[0]])} of {decl.name}, "
                                       "which nothing has written")
        decl.readers.add(self.position)
        return values

    def write(self, name: str, which: np.ndarray, index: np.ndarray, values: np.ndarray, add: bool = False) -> None:
        """Elements `index` of buffer `name` for the instances `which` := values (+= with `add`)."""
        decl = self.lookup(name)
        if not isinstance(decl, Buffer):
            raise ExecutionError(f"{type(self.stmt).__name__} writes {name!r}, which is not a buffer")
        if decl.readers - {self.position}:
            raise ExecutionError(f"{type(self.stmt).__name__} writes {name} after another statement read it: "
                                 "a loop-carried value this executor does not reproduce")
        inst = self.owner(decl)[which]
        bad = np.flatnonzero((index < 0) | (index >= decl.size))
        if bad.size:
            self.fail(which[bad[0]], f"writes element {int(index[bad[0]])} of {decl.name}[{decl.size}]")
        flat = inst * decl.size + index
        target = decl.values.reshape(-1)
        if add:
            unset = np.flatnonzero(target[flat] == UNSET)
            if unset.size:
                self.fail(which[unset[0]], f"adds to element {int(index[unset[0]])} of {decl.name}, which nothing "
                                           "has initialized")
            sums = np.bincount(flat, weights=values.astype(np.float64), minlength=target.size)  # exact below 2^53
            changed = np.flatnonzero(sums)
            target[changed] = _as_ctype(target[changed] + np.rint(sums[changed]).astype(np.int64), decl.ctype)
            return
        if _repeats(flat, target.size):
            raise ExecutionError(f"{type(self.stmt).__name__} writes an element of {decl.name} twice in one of its "
                                 "instances: a loop-carried value this executor does not reproduce")
        target[flat] = _as_ctype(values, decl.ctype)

    def all_instances(self) -> np.ndarray:
        return np.arange(self.frame.count, dtype=np.int64)

    def integer(self, expression: str) -> int:
        return self.x.image.integer(expression)

    def offset(self, offsets: str, x_offset: str) -> int:
        """The input offset: the portable path adds `x_offset`, the DSP path the Broadcast `offsets`;
        a description must give both the same value."""
        value = self.integer(x_offset)
        word = self.lookup(offsets)
        if not isinstance(word, Word) or word.value != int(np.int16(value)):
            raise DescriptionError(f"{type(self.stmt).__name__} adds {x_offset} = {value} on its portable path "
                                   f"but the Broadcast {offsets} on its DSP path")
        return value

    # -- declarations ---------------------------------------------------------------------------

    def _RegAlloc(self, s: RegAlloc) -> None:
        fill = UNSET if s.fill is None else _as_ctype(np.int64(self.integer(s.fill)), s.ctype)
        self.scope[s.name] = Buffer(s.name, s.ctype, self.frame, np.full((self.frame.count, s.size), fill, np.int64))

    def _Broadcast(self, s: Broadcast) -> None:
        self.scope[s.name] = Word(int(np.int16(self.integer(s.value))))

    def _FlashLoad(self, s: FlashLoad) -> None:
        array = self.x.image.array(s.array, "int8_t")
        if not s.into:
            self.scope[s.name] = FlashPointer(s.name, self.frame, array, self.value(s.offset))
            return
        which, i = _expand(np.full(self.frame.count, s.count, np.int64))
        at = self.value(s.offset)[which] + i * s.stride
        bad = np.flatnonzero((at < 0) | (at >= len(array)))
        if bad.size:
            self.fail(which[bad[0]], f"copies element {int(at[bad[0]])} of a flash array of {len(array)}")
        self.write(s.name, which, i, array[at].astype(np.int64))

    # -- the pool -------------------------------------------------------------------------------

    def _RAMLoad(self, s: RAMLoad) -> None:
        address, time, which = self.x.loads[self.position]
        values = self.x.history.read(address, time)
        pending = np.flatnonzero(values == UNSET)
        if pending.size:
            self.fail(which[pending[0]], "loads a pool byte whose store has not run yet: an order this executor "
                                         "does not reproduce", ExecutionError)
        packed = _packed(which, self.frame.count)
        length, runs = self.value(s.length), self.value(s.runs)
        total = np.maximum(length, 0) * np.maximum(runs, 0)
        if s.max_bytes and (total > s.max_bytes).any():
            n = int(np.flatnonzero(total > s.max_bytes)[0])
            self.fail(n, f"loads {int(total[n])} bytes into a copy of {s.max_bytes} (its max_bytes)")
        if s.into is not None:
            self.write(s.into, which, self.value(s.into_index)[which] + packed, values)
            return
        loaded = np.full((self.frame.count, max(1, int(total.max(initial=0)))), UNSET, np.int64)
        loaded[which, packed] = values
        self.scope[s.name] = Loaded(s.name, self.frame, loaded, length, runs, self.value(s.run_stride))

    def _RAMStore(self, s: RAMStore) -> None:
        byte, time, which = self.x.stores[self.position]
        decl = self.lookup(s.src)
        if getattr(decl, "ctype", "int8_t") != "int8_t":
            raise DescriptionError(f"RAMStore of {s.tensor} copies {s.src}, a {decl.ctype} buffer, as bytes")
        packed = _packed(which, self.frame.count)
        values = self.read(s.src, which, self.value(s.src_index)[which] + packed, "the stored")
        self.x.history.record(self.position, values)
        ids = self.ident * (1 << 40) + which
        previous = self.x.stored.get(s.tensor)
        if previous is not None:
            byte, values, ids = (np.concatenate(pair) for pair in zip(previous, (byte, values, ids)))
        self.x.stored[s.tensor] = (byte, values, ids)

    def _RAMFree(self, s: RAMFree) -> None:
        """Nothing to compute: `kernel_run` proves the kernel never reads these bytes again."""

    # -- arithmetic -----------------------------------------------------------------------------

    def _Widen(self, s: Widen) -> None:
        offset = self.offset(s.offsets, s.x_offset)
        which, i = _expand(self.value(s.length))
        x = self.read(s.src, which, self.value(s.src_index)[which] + i, "a widened")
        self.write(s.dst, which, self.value(s.dst_index)[which] + i, x + offset)

    def _Dot(self, s: Dot) -> None:
        """acc[acc_index + 2p + k] += sum_i (x[x_index + p * x_stride + i] + offset) * w_k[w_index + i]."""
        widened = getattr(self.lookup(s.x), "ctype", "int8_t") == "int16_t"  # the offset is in the values
        offset = 0 if widened else self.offset(s.offsets, s.x_offset)
        length, count, pixels = self.value(s.length), self.value(s.count), self.value(s.pixels)
        x_index, w_index, acc_index = self.value(s.x_index), self.value(s.w_index), self.value(s.acc_index)
        x_stride = self.value(s.x_stride)
        if (count > len(s.weights)).any():
            self.fail(int(np.flatnonzero(count > len(s.weights))[0]), f"uses more weight rows than {s.weights}")
        for p in (0, 1):
            for k, weights in enumerate(s.weights[:2]):
                used = np.flatnonzero((pixels > p) & (count > k))
                for part in _chunks(length[used]):
                    n = used[part]
                    local, i = _expand(length[n])
                    which = n[local]
                    x = self.read(s.x, which, x_index[which] + p * x_stride[which] + i, "an input")
                    w = self.read(weights, which, w_index[which] + i, "a weight")
                    products = np.bincount(local, weights=((x + offset) * w).astype(np.float64), minlength=len(n))
                    self.write(s.acc, n, acc_index[n] + 2 * p + k, np.rint(products).astype(np.int64), add=True)

    def _DotLanes(self, s: DotLanes) -> None:
        """acc[l] += (x[x_index + l] + offset) * w[w_index + l], l < lanes."""
        offset = self.offset(s.offsets, s.x_offset)
        w = s.w if s.w in self.scope else FlashPointer(s.w, None, self.x.image.array(s.w, "int8_t"), 0)
        which, lane = _expand(self.value(s.lanes))
        x = self.read(s.x, which, self.value(s.x_index)[which] + lane, "an input")
        weights = self.read(w, which, self.value(s.w_index)[which] + lane, "a weight")
        self.write(s.acc, which, lane, (x + offset) * weights, add=True)

    def _DotRow(self, s: DotRow) -> None:
        """acc[0] += sum_i (x[x_index + i] + offset) * w[w_index + i]."""
        offset = self.offset(s.offsets, s.x_offset)
        which, i = _expand(self.value(s.length))
        x = self.read(s.x, which, self.value(s.x_index)[which] + i, "an input")
        weights = self.read(s.w, which, self.value(s.w_index)[which] + i, "a tap")
        self.write(s.acc, which, np.zeros_like(which), (x + offset) * weights, add=True)

    def _InitBias(self, s: InitBias) -> None:
        """acc[acc_index + k] = bias[channel + k] for k < count, 0 for count <= k < width."""
        bias = self.x.image.array(s.bias, s.ctype)
        width = s.width or self.lookup(s.acc).size
        which, k = _expand(np.full(self.frame.count, width, np.int64))
        channel = self.value(s.channel)[which] + k
        used = k < self.value(s.count)[which]
        bad = np.flatnonzero(used & ((channel < 0) | (channel >= len(bias))))
        if bad.size:
            self.fail(which[bad[0]], f"reads bias {int(channel[bad[0]])} of {len(bias)}")
        values = np.where(used, bias[np.clip(channel, 0, max(len(bias) - 1, 0))], 0) if len(bias) else np.zeros_like(k)
        self.write(s.acc, which, self.value(s.acc_index)[which] + k, values)

    def _Requantize(self, s: Requantize) -> None:
        """dst[dst_index + k + t * dst_stride] = requantized acc[acc_index + k + t * acc_stride], in the
        form the C takes for the layer (`requant.py`), clamped."""
        quant = f"({s.quant})"
        multiplier = self.x.image.array(f"{quant}->requant.multiplier", "int32_t")
        shift = self.x.image.array(f"{quant}->requant.shift", "int8_t")
        offset = self.integer(f"{quant}->output_offset")
        lo, hi = ((-128, 127) if s.form.saturate else
                  (self.integer(f"{quant}->requant.act_min"), self.integer(f"{quant}->requant.act_max")))
        count, pixels = self.value(s.count), self.value(s.pixels)
        which, j = _expand(count * pixels)
        k, t = j % count[which], j // count[which]
        acc = self.read(s.acc, which, self.value(s.acc_index)[which] + k + t * self.value(s.acc_stride)[which],
                        "an accumulator")
        channel = self.value(s.channel)[which] + k
        bad = np.flatnonzero((channel < 0) | (channel >= len(multiplier)))
        if bad.size:
            self.fail(which[bad[0]], f"requantizes channel {int(channel[bad[0]])} of {len(multiplier)}")
        m, r = multiplier[channel].astype(np.int64), shift[channel].astype(np.int64)
        if s.form.narrow:
            value = c_arith.requantize_narrow(acc, m, r, offset)
        elif s.form.shifted:
            value = c_arith.requantize_shifted(acc, m, r, offset)
        else:
            value = c_arith.requantize(acc, m, r) + offset
        index = self.value(s.dst_index)[which] + k + t * self.value(s.dst_stride)[which]
        self.write(s.dst, which, index, c_arith.clamp(value, lo, hi))

    def _AddResidual(self, s: AddResidual) -> None:
        """dst[dst_index + i] = ADD(residual[residual_index + i], dst[...]) (operands in the model's order)."""
        add = self.x.image.evaluate(s.add)
        which, i = _expand(self.value(s.count))
        index = self.value(s.dst_index)[which] + i
        mine = self.read(s.dst, which, index, "a summand")
        residual = self.read(s.residual, which, self.value(s.residual_index)[which] + i, "a residual")
        first, second = (residual, mine) if s.residual_first else (mine, residual)
        self.write(s.dst, which, index, c_arith.add_s8_run(add, first, second))

    def _Accumulate(self, s: Accumulate) -> None:
        which, k = _expand(self.value(s.count))
        values = self.read(s.src, which, self.value(s.src_index)[which] + k, "a summed")
        self.write(s.acc, which, k, values, add=True)

    def _Average(self, s: Average) -> None:
        which, k = _expand(self.value(s.count))
        sums = self.read(s.acc, which, k, "a sum")
        self.write(s.dst, which, k, c_arith.average(sums, s.divisor, s.act_min, s.act_max))
