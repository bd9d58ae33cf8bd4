"""Deliberate errors in kernel descriptions, in their access functions and in plans: `vmcu-run`
alone must catch each one, without any C being built.

Each case injects one error (the test does it, nothing is left in the code) and runs `vmcu-run`
on a model whose plan streams through that kernel family. Memory errors (CASES) must stop the
reference interpreter with exit 4 (a plan hazard):

- "planner": only the planner sees the mutated description, as if an access function were
  wrong: the step's output is placed at the distance the mutant's eq. 1 gives (which must be
  less than the true one), and the interpreter runs the real description.
- "kernel": planner and interpreter both run the mutated description (a wrong free, store,
  ring size, lead-row schedule); the interpreter's checks of the real traffic must catch it.
- "plan": the description is right, the plan is edited (the gap one segment short).

Value errors (VALUE_CASES: a window read one row late, a weight row one byte off, a missing
InitBias, a requantization shift off by one, ...) move no byte of the pool the wrong way, so no
hazard shows them; the interpreter executes the description's arithmetic and must stop with exit
1, naming the step, because the values it stored differ from TFLite's formula or were computed
from bytes or registers nothing set.
"""
from __future__ import annotations

import contextlib
import importlib
import io
import json
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pytest

from tests.c.kernel_models import Chain
from tests.models_under_test import conv_chain, wide_window_block
from tests.planner.test_fusion import Block
from vmcu_reference import interpreter as interpreter_module
from vmcu_reference.cli import main as run_main
from vmcu_tflite import kernels
from vmcu_tflite.cli.common import run_tool
from vmcu_tflite.cli.convert import main as convert_main
from vmcu_tflite.codegen.params import conv2d as conv_params, depthwise_conv2d as depthwise_params
from vmcu_tflite.codegen.params import fully_connected as fc_params
from vmcu_tflite.errors import EXIT_HAZARD, EXIT_OUTPUTS_DIFFER
from vmcu_tflite.kernels import widened_weights, window
from vmcu_tflite.kernels.access import min_distance
from vmcu_tflite.kernels.index import Ix, Var, imin, substitute
from vmcu_tflite.kernels.ir import (Average, Broadcast, Dot, DotLanes, DotLanesPair, DotRow, FlashLoad, InitBias, Loop,
                                    RAMFree, RAMLoad, RAMStore, RegAlloc, Requantize, Workspace)
from vmcu_tflite.pipeline import compile_model
from vmcu_tflite.planner import streaming

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "models"


def fused_without_lead(path: Path) -> Path:
    """depthwise 3x3 -> 1x1 project -> ADD of the block input: a fused block with no lead conv, then
    a 1x1 conv, so that the block's output is not the model's and fusing it shrinks the pool (the
    planner unfuses blocks that do not)."""
    block = Block(np.random.default_rng(5), 8, 6)
    y = block.conv(block.x, 6, 3, 1, depthwise=True)
    y = block.conv(y, 6, 1, 1)
    out = block.b.tensor(block.shape, scale=block.scale * 1.5, zero_point=3)
    block.b.op("ADD", [block.x, y], [out], fused_activation_function=0)
    block.b.inputs, block.b.outputs = [block.x], [block.conv(out, 6, 1, 1)]
    path.write_bytes(block.b.build())
    return path


# --- rewriting descriptions ---------------------------------------------------------------------

def rewrite(kernel, change):
    """The kernel with `change(stmt)` (a statement or a list of them) applied to every statement."""
    def body(stmts):
        out = []
        for stmt in stmts:
            if isinstance(stmt, Loop):
                stmt = replace(stmt, body=tuple(body(stmt.body)))
            new = change(stmt)
            out.extend(new if isinstance(new, list) else [new])
        return out
    return replace(kernel, name=kernel.name + "_mutant", body=tuple(body(kernel.body)))


def shift_loads(tensor: str, delta):
    """Every load of `tensor` `delta` bytes later (delta(stmt) for one that depends on the load)."""
    def change(stmt):
        if isinstance(stmt, RAMLoad) and stmt.tensor == tensor:
            return replace(stmt, offset=stmt.offset + (delta(stmt) if callable(delta) else delta))
        return stmt
    return lambda kernel: rewrite(kernel, change)


def drop_loads(tensor: str, name: str):
    return lambda kernel: rewrite(kernel, lambda s: [] if isinstance(s, RAMLoad) and s.tensor == tensor
                                  and s.name == name else s)


def shift_stores(delta: int):
    return lambda kernel: rewrite(kernel, lambda s: replace(s, offset=s.offset + delta)
                                  if isinstance(s, RAMStore) and s.tensor == "output" else s)


def stores_ignore(var: str):
    """Every output store as if `var` were 0 (all segments of a row over the first)."""
    return lambda kernel: rewrite(kernel, lambda s: replace(s, offset=substitute(s.offset, var, 0))
                                  if isinstance(s, RAMStore) and s.tensor == "output" else s)


def wrong_load_stride(tensor: str, var: str, extra: int):
    """The load's offset advancing `extra` bytes more per iteration of `var` (a wrong stride)."""
    def change(stmt):
        if isinstance(stmt, RAMLoad) and stmt.tensor == tensor:
            return replace(stmt, offset=stmt.offset + Var(var) * extra)
        return stmt
    return lambda kernel: rewrite(kernel, change)


def free_next_iteration(var: str):
    """Right after each input load, free what that load reads one `var` iteration later."""
    def change(stmt):
        if isinstance(stmt, RAMLoad) and stmt.tensor == "input0" and var in stmt.offset.variables():
            ahead = RAMFree("input0", substitute(stmt.offset, var, Var(var) + 1), stmt.length, stmt.runs,
                            stmt.run_stride)
            return [stmt, ahead]
        return stmt
    return lambda kernel: rewrite(kernel, change)


def free_before_load(tensor: str):
    """Free the bytes of each load of `tensor` just before loading them."""
    return lambda kernel: rewrite(kernel, lambda s: [RAMFree(tensor, s.offset, s.length, s.runs, s.run_stride), s]
                                  if isinstance(s, RAMLoad) and s.tensor == tensor else s)


def chain_ring_short(kernel):
    """The chain's first ring one row smaller than the next layer's window."""
    ring = kernel.workspace("ring0")
    rows = kernel.signature[1][1][2][1]  # the second layer's filter shape (C_out, K_h, K_w, C_in): K_h
    return replace(kernel, name=kernel.name + "_mutant",
                   workspaces=(Workspace("ring0", ring.size, ring.capacity - ring.capacity // rows),))


def chain_rows_late(kernel):
    """The first layer's rows made one output row later than the next layer's window needs them."""
    def change(stmt):
        if isinstance(stmt, Loop) and stmt.var == "r0":
            return replace(stmt, lo=substitute(stmt.lo, "y", Var("y") - 1), hi=substitute(stmt.hi, "y", Var("y") - 1))
        return stmt
    return rewrite(kernel, change)


def _statements(body):
    for stmt in body:
        yield stmt
        if isinstance(stmt, Loop):
            yield from _statements(stmt.body)


# --- the cases -----------------------------------------------------------------------------------

CASES = [
    # (id, model, kernel name, where, mutation)
    ("fc-row-start-one-row-late", "fc_batch", "fully_connected", "planner", shift_loads("input0", lambda s: s.length)),
    ("fc-wrong-row-stride", "fc_batch", "fully_connected", "planner", wrong_load_stride("input0", "m", 1)),
    ("fc-free-one-segment-early", "fc_batch", "fully_connected", "kernel", free_before_load("input0")),
    ("fc-gap-one-segment-short", "fc_batch", "fully_connected", "plan", None),
    ("pointwise-row-start-late", "conv_stack", "pointwise", "planner", shift_loads("input0", lambda s: s.length)),
    ("pointwise-store-one-segment-off", "conv_stack", "pointwise", "kernel", shift_stores(12)),
    ("pointwise-segments-stored-over-the-first", "conv_stack", "pointwise", "kernel", stores_ignore("q")),
    ("pointwise-free-next-row", "conv_stack", "pointwise", "kernel", free_next_iteration("m")),
    ("pointwise-gap-one-segment-short", "conv_stack", "pointwise", "plan", None),
    ("conv-window-one-row-lower", "conv_stack", "conv2d", "planner", shift_loads("input0", 6 * 3)),
    ("conv-window-one-column-right", "conv_stack", "conv2d", "planner", shift_loads("input0", 3)),
    ("conv-free-next-pixel", "conv_stack", "conv2d", "kernel", free_next_iteration("x")),
    ("conv-gap-one-segment-short", "conv_stack", "conv2d", "plan", None),
    ("dilated-conv-window-late", "dilated_conv", "conv2d", "planner", shift_loads("input0", 4)),
    ("depthwise-window-one-row-lower", "depthwise_block", "depthwise", "planner", shift_loads("input0", 4 * 16)),
    ("depthwise-segment-one-off", "depthwise_block", "depthwise", "planner", shift_loads("input0", 16)),
    ("depthwise-free-next-pixel", "depthwise_block", "depthwise", "kernel", free_next_iteration("x")),
    ("depthwise-gap-one-segment-short", "depthwise_block", "depthwise", "plan", None),
    ("in-place-free-before-copy", "generic_planes_block", "depthwise_in_place", "kernel", free_before_load("input0")),
    ("in-place-store-next-pixel", "generic_planes_block", "depthwise_in_place", "kernel", shift_stores(9)),
    ("padded-plane-free-before-copy", "float_io_classifier", "depthwise_in_place", "kernel",
     free_before_load("input0")),
    ("padded-plane-store-next-pixel", "float_io_classifier", "depthwise_in_place", "kernel", shift_stores(8)),
    ("column-pairs-free-before-copy", "wide_window_block", "depthwise_in_place", "kernel", free_before_load("input0")),
    ("fused-ring-one-row-short", "depthwise_block", "layer_chain", "kernel", chain_ring_short),
    ("fused-lead-rows-one-row-late", "depthwise_block", "layer_chain", "kernel", chain_rows_late),
    ("fused-residual-ignored", "depthwise_block", "layer_chain", "planner", drop_loads("input0", "res")),
    ("fused-ring-freed-before-read", "depthwise_block", "layer_chain", "kernel", free_before_load("ring0")),
    ("fused-gap-one-segment-short", "depthwise_block", "layer_chain", "plan", None),
    ("fused-no-lead-window-row-lower", "fused_without_lead", "layer_chain", "planner",
     shift_loads("input0", lambda s: 8 * 6 if s.name == "row" else 0)),
    ("fused-no-lead-free-next-pixel", "fused_without_lead", "layer_chain", "kernel", free_next_iteration("x")),
    ("chain-ring-one-row-short", "conv_stack", "layer_chain", "kernel", chain_ring_short),
    ("chain-rows-one-row-late", "conv_stack", "layer_chain", "kernel", chain_rows_late),
    ("chain-ring-freed-before-read", "conv_stack", "layer_chain", "kernel", free_before_load("ring0")),
    ("chain-window-one-row-lower", "conv_stack", "layer_chain", "planner", shift_loads("input0", 16 * 3)),
]
FUSED = {"layer_chain"}  # the other families are checked with every layer apart


@pytest.fixture(scope="module")
def model_paths(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mutants")
    paths = {p.stem: p for p in MODELS.glob("*.tflite")}
    paths["fused_without_lead"] = fused_without_lead(folder / "fused_without_lead.tflite")
    paths["wide_window_block"] = folder / "wide_window_block.tflite"  # two-channel planes of column pairs
    paths["wide_window_block"].write_bytes(wide_window_block(9))
    paths["generic_planes_block"] = folder / "generic_planes_block.tflite"  # in-place planes of all 9 channels
    paths["generic_planes_block"].write_bytes(wide_window_block(9, channels=9, windows=(5,)))
    paths["widened_chain"] = folder / "widened_chain.tflite"  # int16 filter copies (with the share raised)
    paths["widened_chain"].write_bytes(conv_chain(channels=(8, 16, 24, 8), hw=5))
    paths["threes_block"] = folder / "threes_block.tflite"  # depthwise rows three pixels at a time
    paths["threes_block"].write_bytes(threes_block())
    return paths


def threes_block() -> bytes:
    """An inverted bottleneck (fused: a pool smaller than its expanded tensor) whose 5x5 depthwise
    layer makes its rows three pixels at a time (`chain._in_threes`; rows of 13: four triples and a
    pixel alone)."""
    m = Chain(7)
    x = m.input((1, 12, 13, 8))
    y = m.depthwise(m.conv(x, 48, k=(1, 1), act=3), k=(5, 5), act=3)
    y = m.conv(y, 8, k=(1, 1))
    return m.build(m.binary("ADD", y, x, m.info[y][0]))


def _mutated_describe(name: str, mutation):
    original = kernels.describe

    def describe(kind, params, segment, in_place=False, tile_rows=1):
        kernel = original(kind, params, segment, in_place, tile_rows)
        return mutation(kernel) if kernel is not None and kernel.name == name else kernel
    return describe


def _run(model: Path, *extra) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = run_tool("vmcu-run", run_main, [str(model), "--seed", "1", *extra])
    return code, err.getvalue()


def _streamed_step(program, name: str):
    for step, planned in zip(program.steps, program.plan.steps):
        kernel = kernels.describe(step.kernel, step.params, planned.segment_bytes, planned.in_place, planned.tile_rows)
        if kernel is not None and kernel.name == name and planned.streamed_inputs:
            return step, planned, kernel
    raise AssertionError(f"no streamed {name} step")


def _fuse_flags(name: str) -> list[str]:
    return [] if name in FUSED else ["--no-fuse"]


def _plan_at_distance(model: Path, name: str, distance_of, tmp_path: Path) -> tuple[Path, int]:
    """plan.json with the first streamed `name` step's output `distance_of(kernel, segment)` bytes
    before its input, and that step's index."""
    out = tmp_path / "out"
    assert run_tool("vmcu-convert", convert_main, [str(model), "-o", str(out), *_fuse_flags(name)]) == 0
    plan = json.loads((out / "plan.json").read_text())
    program = compile_model(model, fuse=name in FUSED)
    step, planned, kernel = _streamed_step(program, name)
    x, y = program.graph.storage_of(step.inputs[0]), program.graph.storage_of(step.outputs[0])
    for t in plan["tensors"]:
        if t["index"] == y:
            t["offset"] = (program.plan.offsets[x] - distance_of(kernel, planned.segment_bytes)) % plan["pool_bytes"]
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(plan))
    return path, step.index


def _true_distance(kernel) -> int:
    return max(0, min_distance(kernel) or 0)


@pytest.mark.parametrize("case_id, model, name, where, mutation", CASES, ids=[c[0] for c in CASES])
def test_mutant_is_a_hazard(case_id, model, name, where, mutation, model_paths, monkeypatch, tmp_path):
    path = model_paths[model]
    baseline, _ = _run(path, *_fuse_flags(name))
    assert baseline == 0, f"{model} must run cleanly before the mutation"
    if where == "plan":
        plan, step = _plan_at_distance(path, name, lambda k, segment: _true_distance(k) - segment, tmp_path)
        code, err = _run(path, "--plan", str(plan))
    elif where == "planner":
        def wrong(kernel, segment):
            mutant = min_distance(mutation(kernel)) or 0
            assert mutant < (min_distance(kernel) or 0), "the mutant's access functions must tighten the plan"
            return mutant
        plan, step = _plan_at_distance(path, name, wrong, tmp_path)
        code, err = _run(path, "--plan", str(plan))
    else:
        monkeypatch.setattr(streaming, "describe", _mutated_describe(name, mutation))
        monkeypatch.setattr(interpreter_module, "describe", _mutated_describe(name, mutation))
        step = _streamed_step(compile_model(path, fuse=name in FUSED), name)[0].index
        code, err = _run(path, *_fuse_flags(name))
    assert code == EXIT_HAZARD, f"{case_id}: exit {code}, stderr: {err}"
    assert "plan hazard" in err and f"step {step} (" in err, err


# --- value errors ----------------------------------------------------------------------------------

def _substituted(stmt, var: str, value):
    """`stmt` (a loop with its whole body) with loop variable `var` replaced by `value` in every index."""
    fields = {name: substitute(v, var, value) for name in stmt.__dataclass_fields__
              if isinstance(v := getattr(stmt, name), Ix)}
    if isinstance(stmt, Loop):
        fields["body"] = tuple(_substituted(inner, var, value) for inner in stmt.body)
    return replace(stmt, **fields)


def changed(kind, **change):
    """Every statement of `kind` with its fields changed: change[name](stmt) is the new value."""
    return lambda kernel: rewrite(kernel, lambda s: replace(s, **{k: f(s) for k, f in change.items()})
                                  if isinstance(s, kind) else s)


def int16_rows_next_channel(kernel):
    """The int16 filter copy's rows (`widened_weights.py`) read one output channel late (clamped at
    the last): no such rows, no mutant."""
    return rewrite(kernel, lambda s: replace(s, offset=substitute(s.offset, "u", Var("u") + 1))
                   if isinstance(s, FlashLoad) and s.ctype == "int16_t" else s)


def lane_order_ignored(kernel):
    """A depthwise filter's readers read its lane-ordered int16 table (widened_weights.py) as int8 taps in
    channel order: no such readers, no mutant."""
    kinds = (DotLanes, DotLanesPair, FlashLoad)
    return rewrite(kernel, lambda s: replace(s, lane_order=False) if isinstance(s, kinds) and s.lane_order else s)


def dropped(kind):
    return lambda kernel: rewrite(kernel, lambda s: [] if isinstance(s, kind) else s)


def ring_rows_from_next_row(kernel):
    """The chain's first ring: slot r holds the pixels of row r + 1 (the rows' stores unchanged)."""
    def change(stmt):
        if isinstance(stmt, Loop) and stmt.var == "x0":
            return replace(stmt, body=tuple(s if isinstance(s, RAMStore) and s.tensor == "ring0"
                                            else _substituted(s, "r0", Var("r0") + 1) for s in stmt.body))
        return stmt
    return rewrite(kernel, change)


def residual_from_next_row(kernel):
    """The residual ADD reads the input pixel one row below (the last row its own)."""
    last_row = kernel.signature[1][0][1][1] - 1  # the first layer's input shape: (type, (N, H, W, C), ...)
    return changed(RAMLoad, offset=lambda s: substitute(s.offset, "y", imin(Var("y") + 1, last_row))
                   if s.name == "res" else s.offset)(kernel)


def window_late(axis: str | None):
    """window.taps with the window one position later for windows wider than 1 (the padding one
    less): along rows (the output position is a row variable: y, r<i>), columns, or both."""
    original = window.taps

    def taps(out, stride, pad, dilation, kernel, size):
        rows = any(v == "y" or v.startswith("r") for v in out.variables())
        late = kernel > 1 and (axis is None or (axis == "rows") == rows)
        return original(out, stride, pad - 1 if late else pad, dilation, kernel, size)
    return taps


def requant_shift_plus_one(emit_requant):
    """A params emitter's requantization with every shift one larger (the constants the C reads)."""
    return lambda writer, name, r, *form: emit_requant(writer, name, replace(r, shift=[s + 1 for s in r.shift]), *form)


KERNEL_MODULES = {m: importlib.import_module(f"vmcu_tflite.kernels.{m}") for m in ("conv", "depthwise", "chain")}
REQUANT_EMITTERS = (conv_params, depthwise_params, fc_params)


@dataclass(frozen=True)
class Taps:
    """A mutant of window.taps in the kernel modules that build windows (`window_late`)."""

    axis: str | None
    modules: tuple[str, ...] = tuple(KERNEL_MODULES)


@dataclass(frozen=True)
class Shifts:
    """A mutant of the emitted params: every requantization shift one larger."""


@dataclass(frozen=True)
class ChannelOrder:
    """A mutant of the emitted params: lane-ordered depthwise tables written in channel order."""


VALUE_CASES = [
    # (id, model, kernel name, first step the error shows in, mutation: a description rewrite, Taps or Shifts)
    ("conv-window-one-row-late", "conv_stack", "conv2d", 0, Taps("rows", ("conv",))),
    ("conv-window-one-column-late", "conv_stack", "conv2d", 0, Taps("columns", ("conv",))),
    ("depthwise-window-one-row-late", "pad_conv", "depthwise", 1, Taps("rows", ("depthwise",))),
    ("pointwise-load-one-byte-short", "conv_stack", "pointwise", 2, changed(RAMLoad, length=lambda s: s.length - 1)),
    ("fc-weight-row-one-byte-late", "fc_batch", "fully_connected", 0,
     changed(FlashLoad, offset=lambda s: s.offset + 1)),
    ("depthwise-tap-index-off-by-one", "depthwise_block", "depthwise", 5,
     changed(DotLanes, w_index=lambda s: substitute(s.w_index, "kx", Var("kx") + 1))),
    ("conv-dot-one-product-short", "conv_stack", "conv2d", 1,  # step 0's last product is its padding's
     changed(Dot, length=lambda s: s.length - 1)),
    ("requantize-shift-off-by-one", "fc_batch", "fully_connected", 0, Shifts()),
    ("requantize-next-channel", "fc_batch", "fully_connected", 0, changed(Requantize, channel=lambda s: s.channel + 1)),
    ("fc-missing-init-bias", "fc_batch", "fully_connected", 0, dropped(InitBias)),
    ("in-place-offset-disagrees", "generic_planes_block", "depthwise_in_place", 1,
     changed(Broadcast, value=lambda s: s.value.replace("input_offset", "output_offset"))),
    ("padded-plane-edge-zero", "float_io_classifier", "depthwise_in_place", 1,
     changed(RegAlloc, fill=lambda s: s.fill and "0")),  # the padding as 0, not the input's zero point
    ("column-pairs-taps-one-late", "wide_window_block", "depthwise_in_place", 1,
     changed(DotRow, w_index=lambda s: s.w_index + 1 if s.channels == 2 else s.w_index)),
    ("chain-ring-row-off-by-one", "conv_stack", "layer_chain", 0, ring_rows_from_next_row),
    ("chain-residual-from-wrong-pixel", "depthwise_block", "layer_chain", 0, residual_from_next_row),
    ("chain-average-wrong-count", "kws_like", "layer_chain", 0, changed(Average, divisor=lambda s: s.divisor + 1)),
    ("widened-rows-next-channel", "widened_chain", "pointwise", 0, int16_rows_next_channel),
    ("depthwise-lane-order-ignored", "kws_like", "depthwise", 1, lane_order_ignored),  # streamed: widened
    ("depthwise-table-in-channel-order", "pad_conv", "depthwise_in_place", 1, ChannelOrder()),
    ("chain-triple-third-pixel-into-second", "threes_block", "layer_chain", 0,
     changed(DotLanesPair, acc2=lambda s: s.acc1 if s.acc2 else s.acc2)),
]


@pytest.mark.parametrize("cases, least", [(CASES, 20), (VALUE_CASES, 10)], ids=["memory", "value"])
def test_the_cases_cover_the_five_families(cases, least):
    assert len(cases) >= least
    family = {"depthwise_in_place": "depthwise"}
    assert {family.get(c[2], c[2]) for c in cases} == {"fully_connected", "pointwise", "conv2d", "depthwise",
                                                       "layer_chain"}


@pytest.mark.parametrize("case_id, model, name, step, mutation", VALUE_CASES, ids=[c[0] for c in VALUE_CASES])
def test_value_mutant_is_a_mismatch(case_id, model, name, step, mutation, model_paths, monkeypatch):
    path = model_paths[model]
    if model == "widened_chain":  # every 1x1 layer keeps an int16 copy of its filter
        monkeypatch.setattr(widened_weights, "WIDENED_SHARE", 1.0)
    baseline, _ = _run(path, *_fuse_flags(name))
    assert baseline == 0, f"{model} must run cleanly before the mutation"
    if isinstance(mutation, Taps):
        for module in mutation.modules:
            monkeypatch.setattr(KERNEL_MODULES[module], "taps", window_late(mutation.axis))
    elif isinstance(mutation, Shifts):
        for module in REQUANT_EMITTERS:
            monkeypatch.setattr(module, "requant", requant_shift_plus_one(module.requant))
    elif isinstance(mutation, ChannelOrder):
        monkeypatch.setattr(depthwise_params, "lane_order", lambda taps: np.asarray(taps).reshape(-1))
    else:
        monkeypatch.setattr(streaming, "describe", _mutated_describe(name, mutation))
        monkeypatch.setattr(interpreter_module, "describe", _mutated_describe(name, mutation))
    code, err = _run(path, *_fuse_flags(name))
    assert code == EXIT_OUTPUTS_DIFFER, f"{case_id}: exit {code}, stderr: {err}"
    assert f"error: step {step} (" in err and ("TFLite's formula" in err or "wrong kernel description" in err), err


@pytest.mark.parametrize("model, step", [("conv_stack", 0), ("dilated_conv", 0), ("pad_conv", 0),
                                         ("depthwise_block", 1)])
def test_a_window_one_position_late_is_caught_in_python(model, step, model_paths, monkeypatch):
    """Every windowed kernel reading its window one row and one column late, consistently in the
    description, the planner and the C: `vmcu-run --no-fuse --compare-tflm` names the first wrong step."""
    for module in KERNEL_MODULES.values():
        monkeypatch.setattr(module, "taps", window_late(None))
    code, err = _run(model_paths[model], "--no-fuse", "--compare-tflm")
    assert code == EXIT_OUTPUTS_DIFFER and f"error: step {step} (" in err, err
