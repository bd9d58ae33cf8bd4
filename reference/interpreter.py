"""The reference interpreter: executes a plan's steps over the simulated pool.

It is the specification of what the C runtime does: the same steps in the same order, reading
and writing the same pool addresses. Kernels only compute; every activation byte goes through
`SimulatedPool`, which fails on the first byte a wrong plan would corrupt.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from vmcu_tflite.errors import HazardError, MismatchError, UsageError
from vmcu_tflite.kernels import describe
from vmcu_tflite.ops.int16_group import KIND as GROUP_KIND
from vmcu_tflite.pipeline import Program
from vmcu_tflite.plan import workspace_id
from vmcu_tflite.planner.streaming import access_pattern
from vmcu_tflite.state import StateMemory

from .boundary import as_bytes, from_bytes, from_pool, to_pool
from .ops import make_kernel
from .flash import FlashImage, flash_image
from .group_replay import replay_group
from .kernel_run import WORKSPACE_TAG, Role, Stored, run_kernel
from .pool import Access, SimulatedPool
from .row_stream import RowSink, RowSource
from .streaming import replay_segments
from .views import COPY_KINDS, hand_over


@dataclass
class Result:
    outputs: list[np.ndarray]
    raw_outputs: list[np.ndarray] = field(default_factory=list)  # as the pool holds them (the tensor's dtype)
    tensors: dict[int, np.ndarray] = field(default_factory=dict)  # every step output, when recorded
    order: list[int] = field(default_factory=list)  # tensor indices in the order they were produced


class Interpreter:
    """Runs one `Program`; kernels are built once and reused across invocations.

    The model's state (variable tensors) persists from one `run` to the next, as in TFLite Micro
    and the C runtime's state region, until `reset_state`.
    """

    def __init__(self, program: Program, trace: Callable[[str], None] | None = None) -> None:
        self.program = program
        self.trace = trace
        self.kernels = [make_kernel(s.kernel, s.params) for s in program.steps]
        self.planned = {s.index: s for s in program.plan.steps}
        self.images: dict[int, FlashImage] = {}  # described steps' params as their C holds them, made once
        self.state = StateMemory(program.graph)
        if len(self.planned) != len(program.steps) or any(self.planned[s.index].kernel != s.kernel
                                                          for s in program.steps):
            raise UsageError("the plan does not match the model's steps (was it made for another model?)")

    def _access(self, step_index: int, tensor: int, segment: int | None = None) -> Access:
        graph = self.program.graph
        storage = graph.storage_of(tensor)
        if step_index < 0:
            kernel, ops = "input", ()
        elif step_index >= len(self.program.steps):
            kernel, ops = "output", ()
        else:
            kernel, ops = self.program.steps[step_index].kernel, self.program.steps[step_index].ops
        if tensor < 0:  # a step's workspace
            return Access(step_index, kernel, ops, tensor, f"workspace of step {step_index}", segment or 1)
        shape = graph.tensors[tensor].shape
        return Access(step=step_index, kernel=kernel, ops=ops, tensor=storage, tensor_name=graph.tensors[storage].name,
                      segment_bytes=segment or (shape[-1] if shape else 1))

    def reset_state(self) -> None:
        """Every variable back to TFLite's initial value (`vmcu_reset_state()`)."""
        self.state.reset()

    def run(self, inputs: Sequence[np.ndarray], record: bool = False) -> Result:
        """One invocation. Streamed inputs (`plan.streamed_io`) are served row by row through the
        protocol a camera would follow (`row_stream.py`), streamed outputs taken the same way."""
        graph, plan = self.program.graph, self.program.plan
        if len(inputs) != len(graph.inputs):
            raise UsageError(f"the model takes {len(graph.inputs)} inputs, got {len(inputs)}")
        pool = SimulatedPool(plan.pool_bytes, self.trace)
        base = lambda t: plan.offsets[graph.storage_of(t)]  # noqa: E731
        result = Result(outputs=[])
        streamed_in = {p.index: p for p in plan.streamed_io.inputs}
        data = {}
        for index, (port, value) in enumerate(zip(graph.inputs, inputs)):
            value = np.asarray(value)
            if tuple(value.shape) != tuple(port.shape):
                raise UsageError(f"input tensor {port.tensor} has shape {tuple(port.shape)}, got {value.shape}")
            data[index] = to_pool(port, graph.tensors[port.tensor], value)
            if index not in streamed_in:
                pool.store(self._access(-1, port.tensor), base(port.tensor), 0, as_bytes(data[index]))
        source = RowSource(plan.streamed_io.inputs, data, self.trace)
        sink = RowSink(plan.streamed_io.outputs, self.trace)
        in_ring = {graph.storage_of(graph.inputs[p.index].tensor): data[p.index] for p in plan.streamed_io.inputs
                   if p.in_ring}
        dying = self._last_reads()
        for step, kernel in zip(self.program.steps, self.kernels):
            for port in plan.streamed_io.inputs:
                if port.step == step.index and not port.in_ring:
                    self._pull_rows(pool, source, port, base(graph.inputs[port.index].tensor))
            args = [in_ring[graph.storage_of(t)].reshape(graph.tensors[t].shape) if graph.storage_of(t) in in_ring
                    else self._load_part(pool, step, kernel, t, base(t)) if step.kernel in COPY_KINDS and i == 0
                    else from_bytes(pool.load(self._access(step.index, t), base(t), 0, graph.tensors[t].num_bytes),
                                    graph.tensors[t]) for i, t in enumerate(step.inputs)]
            out = kernel.run(*args, state=self.state.tensors) if kernel.stateful else kernel.run(*args)
            if step.outputs:  # ASSIGN_VARIABLE and CALL_ONCE write only the state region
                t_out = step.outputs[0]
                out = self._write_output(pool, step, args, out, base, source, sink)
                if record:
                    result.tensors[t_out] = out
                    result.order.append(t_out)
            for port in plan.streamed_io.outputs:
                if port.step == step.index and not port.in_ring:
                    self._push_rows(pool, sink, port, base(graph.outputs[port.index].tensor))
            for t in dying.get(step.index, ()):
                if graph.storage_of(t) not in in_ring:
                    pool.free(self._access(step.index, t), base(t), 0, graph.tensors[t].num_bytes)
        source.finish()
        sink.finish()
        end = len(self.program.steps)
        for index, port in enumerate(graph.outputs):
            tensor = graph.tensors[port.tensor]
            if index in sink.data:
                data = sink.data[index].reshape(-1)
            else:
                data = pool.load(self._access(end, port.tensor), base(port.tensor), 0, tensor.num_bytes)
            data = from_bytes(data, tensor).reshape(port.shape)
            result.raw_outputs.append(data)
            result.outputs.append(from_pool(port, tensor, data))
        return result

    def _load_part(self, pool: SimulatedPool, step, kernel, tensor: int, at: int) -> np.ndarray:
        """A copy step's input as it reads it: only the bytes its elements come from are loaded
        and checked (an int16 part cut out earlier may sit on the others as a view, `views.py`);
        which ones, the step's own reference op says, run on the elements' indices."""
        t = self.program.graph.tensors[tensor]
        whole = lambda: from_bytes(pool.load(self._access(step.index, tensor), at, 0, t.num_bytes), t)  # noqa: E731
        if t.dtype != "int16":  # int8 copies never view: the whole input checked, as always
            return whole()
        read = np.unique(np.asarray(kernel.run(np.arange(t.num_elements).reshape(t.shape))).reshape(-1))
        size = np.dtype(t.dtype).itemsize
        offsets = (read[:, None] * size + np.arange(size)).reshape(-1)
        raw = np.zeros(t.num_bytes, np.int8)
        raw[offsets] = pool.load_at(self._access(step.index, tensor), at, offsets)
        return from_bytes(raw, t)

    def _pull_rows(self, pool: SimulatedPool, source: RowSource, port, at: int) -> None:
        """The whole input pulled into its place in the pool, row by row, before the step that reads it."""
        tensor = self.program.graph.inputs[port.index].tensor
        for row in range(port.rows):
            address = (at + row * port.row_bytes) % pool.size
            values = source.pull(port.index, row, port.row_bytes, address)
            pool.store(self._access(port.step - 1, tensor), at, row * port.row_bytes, values)

    def _push_rows(self, pool: SimulatedPool, sink: RowSink, port, at: int) -> None:
        """The output handed over row by row, right after the step that made it."""
        tensor = self.program.graph.outputs[port.index].tensor
        for row in range(port.rows):
            values = pool.load(self._access(port.step + 1, tensor), at, row * port.row_bytes, port.row_bytes)
            sink.push(port.index, row, values)

    def _write_output(self, pool: SimulatedPool, step, args: list[np.ndarray], out: np.ndarray, base,
                      source: RowSource | None = None, sink: RowSink | None = None) -> np.ndarray:
        """Store the step's output the way its kernel does: at once, by segments, or in place.
        A described kernel computes the output itself, from the bytes it loads; what it stored
        must equal `out`, TFLite's formula on the same inputs. Returns the output as stored."""
        graph, planned = self.program.graph, self.planned[step.index]
        t_out, segment = step.outputs[0], planned.segment_bytes
        out_who = self._access(step.index, t_out, segment)
        if step.kernel == GROUP_KIND:
            return self._run_group(pool, step, out, base)
        kernel = describe(step.kernel, step.params, segment, planned.in_place, planned.tile_rows)
        if kernel is not None:
            stored = self._run_described(pool, step, kernel, base, source, sink)
            _check_against_formula(step, stored, out)
            return stored.values.view(np.asarray(out).dtype).reshape(out.shape)  # the bytes as the output's elements
        if step.kernel in COPY_KINDS and hand_over(
                pool, self._access(step.index, step.inputs[0]), base(step.inputs[0]),
                graph.tensors[step.inputs[0]].num_bytes, out_who, base(t_out),
                as_bytes(np.asarray(out, dtype=graph.tensors[t_out].dtype))):
            return out
        if planned.streamed_inputs:
            streamed = [(self._access(step.index, x, segment), base(x), graph.tensors[x].num_bytes,
                         access_pattern(graph, step, x, segment)) for x in planned.streamed_inputs]
            # the patterns count bytes: a wider element (int16) is replayed as its bytes
            replay_segments(pool, streamed, out_who, base(t_out),
                            as_bytes(np.asarray(out, dtype=graph.tensors[t_out].dtype)))
        else:
            pool.store(out_who, base(t_out), 0, as_bytes(np.asarray(out, dtype=graph.tensors[t_out].dtype)))
        return out

    def _run_group(self, pool: SimulatedPool, step, out: np.ndarray, base) -> np.ndarray:
        """Replay an int16 element-wise group block by block over the pool (`group_replay.py`); what
        it stored must equal the group's kernel run on the inputs loaded when the step began."""
        graph, planned = self.program.graph, self.planned[step.index]
        segment = planned.segment_bytes
        streamed = {graph.storage_of(t) for t in planned.streamed_inputs}
        external = [(self._access(step.index, t, segment), base(t), graph.storage_of(t) in streamed)
                    for t in step.inputs]
        who = Access(step.index, step.kernel, step.ops, WORKSPACE_TAG - step.index,
                     f"block buffers (workspace of step {step.index})", step.params.block * 2)
        at = self.program.plan.offsets.get(workspace_id(step.index), 0)
        stored = replay_group(pool, self.kernels[step.index], external, (who, at),
                              self._access(step.index, step.outputs[0], segment), base(step.outputs[0]))
        expected = np.asarray(out, dtype=np.int16).reshape(-1)
        if not np.array_equal(stored, expected):
            first = int(np.flatnonzero(stored != expected)[0])
            raise MismatchError(f"step {step.index} ({step.kernel}, TFLite ops {', '.join(map(str, step.ops))}): "
                                f"element {first} stored block by block is {int(stored[first])}, the group's "
                                f"kernel gives {int(expected[first])}")
        return out

    def _run_described(self, pool: SimulatedPool, step, kernel, base, source: RowSource | None = None,
                       sink: RowSink | None = None) -> Stored:
        """Check the loads, stores and frees of the step's kernel description, in its order, and
        execute it over the step's params as its C holds them (the rows it pulls from `source`,
        those it pushes to `sink`)."""
        graph, planned = self.program.graph, self.planned[step.index]
        segment = planned.segment_bytes
        x = step.inputs[0]  # described kernels read one activation tensor
        streamed = {graph.storage_of(t) for t in planned.streamed_inputs}
        roles = {"input0": Role(self._access(step.index, x, segment), base(x), graph.tensors[x].num_bytes,
                                consumed=graph.storage_of(x) in streamed)}
        roles["output"] = Role(self._access(step.index, step.outputs[0], segment), base(step.outputs[0]),
                               graph.tensors[step.outputs[0]].num_bytes)
        for ws in kernel.workspaces:
            who = Access(step.index, step.kernel, step.ops, WORKSPACE_TAG - step.index,
                         f"{ws.name} (workspace of step {step.index})", segment)
            at = self.program.plan.offsets[workspace_id(step.index)] + ws.at
            if ws.wraps and at % pool.size + ws.capacity > pool.size:
                raise HazardError(f"plan hazard: step {step.index} ({step.kernel}): its line ring {ws.name} crosses "
                                  f"the end of the pool, where it cannot wrap at its own end")
            roles[ws.name] = Role(who, at, ws.size, ws.capacity, consumed=True)
        for name, size in kernel.tensors.items():
            if roles[name].size != size:
                raise UsageError(f"step {step.index} ({step.kernel}): its kernel addresses {size} bytes of {name}, "
                                 f"the tensor has {roles[name].size}")
        if step.index not in self.images:
            self.images[step.index] = flash_image(step, graph)
        return run_kernel(pool, kernel, roles, self.images[step.index], source, sink)

    def _last_reads(self) -> dict[int, list[int]]:
        """Step index -> tensors whose storage no later step (nor the application) reads. An
        output nothing reads (dead code in the model) dies with the step that writes it, as the
        planner's lifetimes have it."""
        graph = self.program.graph
        kept = {graph.storage_of(p.tensor) for p in graph.outputs}
        last: dict[int, tuple[int, int]] = {}
        for step in self.program.steps:
            for t in step.outputs:
                last.setdefault(graph.storage_of(t), (step.index, t))
            for t in step.inputs:
                last[graph.storage_of(t)] = (step.index, t)
        dying: dict[int, list[int]] = {}
        for storage, (index, t) in last.items():
            if storage not in kept:
                dying.setdefault(index, []).append(t)
        return dying


def _check_against_formula(step, stored: Stored, formula: np.ndarray) -> None:
    """The described step's output must be TFLite's: the reference formula on the same inputs."""
    expected = np.asarray(formula).reshape(-1)
    differ = np.flatnonzero(~stored.stored | (stored.values != expected.view(np.int8)))
    if not differ.size:
        return
    first = int(differ[0])  # a byte (of an int16 output: element first // 2)
    index = tuple(int(i) for i in np.unravel_index(first // expected.itemsize, np.shape(formula)))
    ops = ", ".join(map(str, step.ops)) or "-"
    where = f"step {step.index} ({step.kernel}, TFLite op {ops})"
    if not stored.stored[first]:
        raise MismatchError(f"{where}: its kernel description never stores output byte {first} (index {index}); "
                            f"{differ.size} of {expected.nbytes} bytes differ from TFLite's formula")
    raise MismatchError(f"{where}: its kernel description stores {int(stored.values[first])} at output byte {first} "
                        f"(index {index}) where TFLite's formula gives {int(expected.view(np.int8)[first])}; "
                        f"{differ.size} of {expected.nbytes} bytes differ; stored by "
                        f"{stored.describe(int(stored.by[first]))}")
