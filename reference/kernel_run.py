"""Runs a kernel description's loads, stores and frees over the simulated pool, in the kernel's order.

This is how the reference checks the steps whose kernels are written in the kernel language
(`vmcu_tflite/kernels/`): every RAMLoad must find, at the time the kernel executes it, every
byte it reads still holding that byte of that tensor; every RAMStore must land on bytes nobody
needs any more; RAMFree releases bytes, and so does the kernel's own progress: a byte of a
streamed input (or of a workspace) is released as soon as no later load reads at or below it
(the frontier of paper eq. 1), which is exactly when the plan lets the output land on it.

The check is vectorized rather than replayed instance by instance: each byte's lifetime in the
pool is an interval (stored -> released) and the kernel is correct iff (1) at every physical
address these intervals never overlap (no store lands on a live byte, nothing is stored twice)
and (2) every load falls inside the interval of every byte it reads. Times are the schedule's
(`vmcu_tflite/kernels/schedule.py`), doubled so that "released just after" fits between two
statement instances. The first violation in time is reported with its step, op, tensor, segment
and pool address.

Once the traffic is proved, the description's arithmetic runs over it (`kernel_exec.py`): each
load returns the bytes the pool holds where and when it loads them, and what the stores write
is computed from those bytes; that output is what the step leaves in the pool.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Callable

import numpy as np

from vmcu_tflite.errors import HazardError, MismatchError
from vmcu_tflite.kernels.ir import Kernel, PullRow, RAMFree, RAMLoad, RAMStore
from vmcu_tflite.kernels.schedule import clock, instances, time_of, values, walk

from .flash import FlashImage
from .kernel_exec import Executor
from .kernel_state import DescriptionError, ExecutionError
from .pool_history import PoolHistory
from .pool import FREE, Access, SimulatedPool

NEVER = np.iinfo(np.int64).max // 4
BEFORE = -NEVER
WORKSPACE_TAG = -1000  # pool owner tag of step k's workspace bytes: WORKSPACE_TAG - k


@dataclass
class Role:
    """A tensor the kernel names ("input0", "output", a workspace) and where it lives."""

    who: Access
    base: int  # pool address of byte 0 (a workspace: of the workspace region)
    size: int  # logical bytes
    capacity: int = 0  # > 0: logical byte b lives at base + b % capacity (a workspace)
    consumed: bool = False  # released as the kernel progresses (a streamed input, a workspace)

    def addresses(self, pool: SimulatedPool, offsets: np.ndarray) -> np.ndarray:
        physical = offsets % self.capacity if self.capacity else offsets
        return (self.base + physical) % pool.size


class _RangeTable:
    """O(1) range minimum and maximum over a fixed array (sparse table)."""

    def __init__(self, data: np.ndarray) -> None:
        self.lo, self.hi = [data], [data]
        span = 1
        while 2 * span <= len(data):
            lo, hi = self.lo[-1], self.hi[-1]
            self.lo.append(np.minimum(lo[:-span], lo[span:]))
            self.hi.append(np.maximum(hi[:-span], hi[span:]))
            span *= 2

    def query(self, start: np.ndarray, length: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        level = np.floor(np.log2(np.maximum(length, 1))).astype(np.int64)
        lows, highs = np.empty(len(start), np.int64), np.empty(len(start), np.int64)
        for k in np.unique(level):
            pick = level == k
            a, b = start[pick], start[pick] + length[pick] - (1 << int(k))
            lows[pick] = np.minimum(self.lo[k][a], self.lo[k][b])
            highs[pick] = np.maximum(self.hi[k][a], self.hi[k][b])
        return lows, highs


@dataclass
class _Events:
    """Instances of one memory statement: times, first byte, bytes per run, runs, run stride."""

    placed: object
    env: dict
    time: np.ndarray
    offset: np.ndarray
    length: np.ndarray
    runs: np.ndarray
    stride: np.ndarray

    @property
    def stmt(self):
        return self.placed.stmt

    def only(self, keep: np.ndarray) -> "_Events":
        env = {k: (v[keep] if isinstance(v, np.ndarray) and v.shape == keep.shape else v) for k, v in self.env.items()}
        env["__count__"] = np.int64(int(keep.sum()))
        return _Events(self.placed, env, self.time[keep], self.offset[keep], self.length[keep], self.runs[keep],
                       self.stride[keep])

    @cached_property
    def run_starts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(time, start, length, instance) per run, runs of zero length dropped."""
        runs = np.where((self.runs > 0) & (self.length > 0), self.runs, 0)
        which = np.repeat(np.arange(len(runs)), runs)
        first = np.repeat(np.cumsum(runs) - runs, runs)
        r = np.arange(len(which)) - first
        return self.time[which], self.offset[which] + r * self.stride[which], self.length[which], which

    def bytes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(time, byte, instance) per byte."""
        time, start, length, which = self.run_starts
        at = np.repeat(np.arange(len(start)), length)
        first = np.repeat(np.cumsum(length) - length, length)
        return time[at], start[at] + np.arange(len(at)) - first, which[at]


def _events(kernel: Kernel) -> list[_Events]:
    clk = clock(kernel)
    found = []
    for placed in walk(kernel.body):
        stmt = placed.stmt
        if not isinstance(stmt, (RAMLoad, RAMStore, RAMFree)):
            continue
        env = instances(placed)
        count = int(env["__count__"])
        time = np.broadcast_to(np.asarray(time_of(placed, env, clk), dtype=np.int64), (count,)) * 2
        runs = values(stmt.runs, env) if not isinstance(stmt, RAMStore) else np.ones(count, np.int64)
        stride = values(stmt.run_stride, env) if not isinstance(stmt, RAMStore) else np.zeros(count, np.int64)
        found.append(_Events(placed, env, time, values(stmt.offset, env), values(stmt.length, env), runs, stride))
    return found


def _describe(events: _Events, instance: int) -> str:
    stmt = events.stmt
    loops = ", ".join(f"{loop.var}={int(events.env[loop.var][instance])}" for loop in events.placed.loops)
    return f"{type(stmt).__name__} of {stmt.tensor}" + (f" at ({loops})" if loops else "")


def run_kernel(pool: SimulatedPool, kernel: Kernel, roles: dict[str, Role], image: FlashImage, rows=None,
               sink=None) -> Stored:
    """Check one step's memory traffic, execute its arithmetic over the constants `image` (the
    step's params as its C holds them) and apply it to the pool: what it returns is what it stored.
    `rows` serves the streamed inputs' rows a PullRow stores (`row_stream.RowSource`); `sink`
    takes the streamed outputs' rows a PushRow loads (`row_stream.RowSink`), in time order."""
    events = _events(kernel)
    failures: list[tuple[int, str]] = []  # (time, message): the earliest is reported
    for k, e in enumerate(events):
        role = roles[e.stmt.tensor]
        last = e.offset + np.maximum(e.runs - 1, 0) * e.stride + e.length
        outside = ((e.offset < 0) | (last > role.size)) & (e.runs > 0) & (e.length > 0)
        if outside.any():
            i = int(np.flatnonzero(outside)[0])
            failures.append((int(e.time[i]), f"plan hazard: {_prefix(role.who)}: {_describe(e, i)} touches bytes "
                                             f"[{int(e.offset[i])}, {int(last[i])}) of tensor {role.who.tensor} "
                                             f"'{role.who.tensor_name}', which has {role.size}"))
            events[k] = e.only(~outside)
        pool.note(f"step {role.who.step:3d} {role.who.kernel:<24s} {type(e.stmt).__name__} of {e.stmt.tensor}: "
                  f"{len(e.time)} instances checked")

    stores = {name: [e.bytes() for e in events if isinstance(e.stmt, RAMStore) and e.stmt.tensor == name]
              for name in roles}
    stores = {name: tuple(np.concatenate(parts) for parts in zip(*found)) for name, found in stores.items() if found}
    first_store = {}  # role -> per logical byte: time of its first store (NEVER: not stored)
    for name, (t, b, _) in stores.items():
        first_store[name] = np.full(roles[name].size, NEVER, np.int64)
        np.minimum.at(first_store[name], b, t)

    death = {name: np.full(role.size, NEVER, np.int64) for name, role in roles.items()}
    for name, role in roles.items():
        if not role.consumed:
            continue
        loads = [e.run_starts for e in events if isinstance(e.stmt, RAMLoad) and e.stmt.tensor == name
                 and len(e.run_starts[1])]  # a load whose window holds no input (all padding) reads nothing
        frontier = np.full(role.size, BEFORE, np.int64)
        if loads:
            times, starts = np.concatenate([l[0] for l in loads]), np.concatenate([l[1] for l in loads])
            order = np.argsort(starts, kind="stable")
            last = np.maximum.accumulate(times[order])
            k = np.searchsorted(starts[order], np.arange(role.size), side="right") - 1
            frontier = np.where(k >= 0, last[np.maximum(k, 0)] + 1, BEFORE)
        if name in first_store:
            stored = first_store[name] != NEVER
            frontier = np.where(stored, np.maximum(frontier, first_store[name] + 1), frontier)
        death[name] = frontier
        for e in events:
            if isinstance(e.stmt, RAMFree) and e.stmt.tensor == name:
                t, b, _ = e.bytes()
                np.minimum.at(death[name], b, t)

    for name, role in roles.items():
        loads = [e for e in events if isinstance(e.stmt, RAMLoad) and e.stmt.tensor == name and len(e.run_starts[0])]
        if not loads:
            continue
        # Bytes in the pool before the step were born before it; a workspace byte when stored.
        born = first_store.get(name, np.full(role.size, NEVER if role.capacity else BEFORE, np.int64))
        births, deaths = _RangeTable(born), _RangeTable(death[name])
        for e in loads:
            time, start, length, which = e.run_starts
            latest_birth = births.query(start, length)[1]
            earliest_death = deaths.query(start, length)[0]
            bad = np.flatnonzero((latest_birth >= time) | (earliest_death <= time))
            if bad.size:
                k = bad[np.argmin(time[bad])]
                span = np.arange(start[k], start[k] + length[k])
                gone = span[(born[span] >= time[k]) | (death[name][span] <= time[k])][0]
                why = "is not stored yet" if born[gone] >= time[k] else "was already released"
                failures.append((int(time[k]), f"plan hazard: {_where(pool, role, int(gone))} {why} when "
                                               f"{_describe(e, int(which[k]))} reads it"))

    # Every byte's stay at its pool address, from its store (or before the step) to its release:
    # nothing may arrive before the previous occupant left (no store over a live byte, none twice).
    occupied = np.flatnonzero(pool.owner != FREE)
    ends = np.full(occupied.size, NEVER, np.int64)
    for name, role in roles.items():
        if role.consumed and not role.capacity:
            mine = pool.owner[occupied] == role.who.tensor
            ends[mine] = death[name][pool.byte[occupied[mine]]]
    addr, begin, end, label = [occupied], [np.full(occupied.size, BEFORE, np.int64)], [ends], \
        [np.full(occupied.size, -1, np.int64)]
    names = list(stores)
    for k, name in enumerate(names):
        t, b, _ = stores[name]
        addr.append(roles[name].addresses(pool, b))
        begin.append(t)
        end.append(death[name][b] if roles[name].capacity else np.full(b.size, NEVER, np.int64))
        label.append(k * (1 << 40) + b)
    a, s, t, lab = (np.concatenate(x) for x in (addr, begin, end, label))
    order = np.lexsort((s, a))
    a, s, t, lab = a[order], s[order], t[order], lab[order]
    clash = np.flatnonzero((a[1:] == a[:-1]) & (s[1:] <= t[:-1]))
    if clash.size:
        k = clash[np.argmin(s[clash + 1])]
        name, byte = names[int(lab[k + 1] >> 40)], int(lab[k + 1] & ((1 << 40) - 1))
        held = _held(pool, int(a[k]), lab[k], names, roles)
        failures.append((int(s[k + 1]), f"plan hazard: {_where(pool, roles[name], byte)} is written over {held}, "
                                        "which is still to be read"))
    if failures:
        raise HazardError(min(failures)[1])

    stored = _execute(pool, kernel, roles, events, image, None if rows is None else _pulled_in_order(events, rows),
                      sink)
    # Apply: streamed inputs released, workspace gone, the output in place.
    for role in roles.values():
        if role.consumed and not role.capacity:
            pool.release(pool.addresses_of(role.who.tensor, role.base, role.size))
    if "output" in first_store and not roles["output"].capacity:  # (an output pushed from a ring left with it)
        b = np.flatnonzero(first_store["output"] != NEVER)
        pool.place(roles["output"].who, roles["output"].base, b, stored.values[b])
    return stored


class _Served:
    """The rows a kernel's PullRow statements took, by (input, row): the executor runs statement
    by statement, so the rows are pulled first, all of them in the order the C pulls them."""

    def __init__(self, rows: dict[tuple[int, int], np.ndarray]) -> None:
        self.rows = rows

    def pull(self, index: int, row: int, length: int) -> np.ndarray:
        return self.rows[index, row][:length]


def _pulled_in_order(events: list[_Events], source) -> _Served:
    """Every row the kernel pulls, asked of `source` (`row_stream.RowSource`) in time order
    across the PullRow statements (a chain with a line ring pulls from two)."""
    pulls = [(int(t), e.stmt.input, int(r), int(n)) for e in events if isinstance(e.stmt, PullRow)
             for t, r, n in zip(e.time, values(e.stmt.row, e.env), e.length)]
    return _Served({(i, r): source.pull(i, r, n) for _, i, r, n in sorted(pulls)})


@dataclass
class Stored:
    """The output a description stored: each byte's value and the statement instance that stored it."""

    values: np.ndarray  # int8 per logical byte (0 where nothing stored it)
    stored: np.ndarray  # bool per logical byte
    by: np.ndarray  # per logical byte: statement id << 40 | instance (-1: not stored)
    describe: Callable[[int], str]  # `by` value -> "RAMStore of output at (y=3, x=4, q=0)"


def _execute(pool: SimulatedPool, kernel: Kernel, roles: dict[str, Role], events: list[_Events],
             image: FlashImage, rows=None, sink=None) -> Stored:
    """Run the description's arithmetic over the bytes its loads find in the pool (kernel_exec)."""
    loads, stores, history = {}, {}, {}
    for e in events:
        time, byte, which = e.bytes()
        role = roles[e.stmt.tensor]
        if isinstance(e.stmt, RAMLoad):
            loads[e.placed.positions] = (role.addresses(pool, byte), time, which)
        elif isinstance(e.stmt, RAMStore):
            stores[e.placed.positions] = (byte, time, which)
            history[e.placed.positions] = (role.addresses(pool, byte), time)
    executor = Executor(kernel, image, PoolHistory(pool.data, history), loads, stores, rows)
    try:
        written = executor.run()
    except DescriptionError as err:
        raise MismatchError(f"{_prefix(roles['output'].who)}: wrong kernel description: {err}") from None
    except ExecutionError as err:
        raise ExecutionError(f"{_prefix(roles['output'].who)}: {err}") from None
    for _, index, row, pushed in sorted(executor.pushed, key=lambda push: push[0]):
        if sink is None:
            raise ExecutionError(f"{_prefix(roles['output'].who)}: PushRow of output {index}, but the run "
                                 "streams no output")
        sink.push(index, row, pushed.astype(np.int8))
    size = roles["output"].size
    values, stored, by = np.zeros(size, np.int8), np.zeros(size, bool), np.full(size, -1, np.int64)
    if "output" in written:
        byte, value, ident = written["output"]
        values[byte], stored[byte], by[byte] = value, True, ident
    pool.note(f"step {roles['output'].who.step:3d} {roles['output'].who.kernel:<24s} executed "
              f"{len(executor.statements)} statements of {kernel.name}")
    return Stored(values, stored, by, lambda ident: executor.describe(int(ident >> 40), int(ident & ((1 << 40) - 1))))


def _prefix(who: Access) -> str:
    return f"step {who.step} ({who.kernel}, TFLite op {', '.join(map(str, who.ops)) or '-'})"


def _where(pool: SimulatedPool, role: Role, byte: int) -> str:
    address = int(role.addresses(pool, np.array([byte]))[0])
    return pool.describe(role.who, byte, address)


def _held(pool: SimulatedPool, address: int, label: int, names: list[str], roles: dict[str, Role]) -> str:
    if label < 0:
        return pool.holder(address)
    name, byte = names[int(label >> 40)], int(label & ((1 << 40) - 1))
    return f"byte {byte} of {roles[name].who.tensor_name}"
