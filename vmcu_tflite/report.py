"""report.md: what each step needs, and the totals next to the whole-tensor plan and TFLite Micro."""
from __future__ import annotations

from .cost import REFERENCE_CORE, measured_as, predicted_steps
from .grouping import GROUP
from .layer_baseline import LayerBaseline
from .oracle import NOT_IN_TFLM, TFLM
from .peak import explain_peak
from .pipeline import Program
from .planner.views import view_steps
from .state import state_layout


def _ratio(a: int, b: int | None) -> str:
    return f"{a / b:.1%}" if b else "-"


TUNED_FOR = {"dsp": "the DSP extension", "helium": "Helium (Cortex-M55)", "scalar": "cores without the DSP extension"}
ARM_CPUS = ("cortex-m0", "cortex-m3", "cortex-m4", "cortex-m7", "cortex-m33", "cortex-m55")  # the toolchain's VMCU_CPU
BUILD = {"host": "cmake -S . -B build && cmake --build build"} | {
    cpu: "cmake -S . -B build -DCMAKE_TOOLCHAIN_FILE=vmcu_runtime/targets/arm-none-eabi.cmake "
         f"-DVMCU_CPU={cpu} && cmake --build build" for cpu in ARM_CPUS}


def pinned_views(program: Program) -> set[int]:
    """The steps whose output the plan placed on the input bytes it copies (`planner/views.py`)."""
    graph, plan = program.graph, program.plan
    return {k for k, offset in view_steps(graph, program.steps).items()
            if (plan.offsets[graph.storage_of(program.steps[k].inputs[0])] + offset) % plan.pool_bytes
            == plan.offsets[graph.storage_of(program.steps[k].outputs[0])]}


def render_report(program: Program, baseline: LayerBaseline, tflm_head: int | None, target: str = "host",
                  oracle: str = TFLM) -> str:
    """Markdown; `baseline` what each step's layers hold at whole-tensor level (`layer_baseline`),
    `tflm_head` TFLite Micro's measured activation arena (None when tflite-micro is not installed
    or cannot run the model), `oracle` what checks the model's values (`oracle.oracle_name`)."""
    plan, graph = program.plan, program.graph
    state = state_layout(graph)
    unmeasured = ("not measured (pip install tflite-micro)" if oracle == TFLM
                  else f"none: TFLite Micro lacks {', '.join(sorted({op.kind for op in graph.ops} & NOT_IN_TFLM))}")
    extra = sum(f.recomputed_macs for f in plan.fusion if f.fused and f.recompute)
    predicted = predicted_steps(program)
    core = REFERENCE_CORE[measured_as(plan.tuning)]
    recomputed = f" (+{extra:,} recomputed: --allow-recompute)" if extra else ""
    views = pinned_views(program)
    lines = [
        f"# Memory plan of {plan.model}",
        "",
        "| | bytes | ours vs it |",
        "|---|---:|---:|",
        f"| pool, {plan.planner} plan | {plan.pool_bytes:,} | |",
        f"| whole-tensor plan of the layers, nothing fused (greedy like TFLite Micro) | {plan.tensor_level_bytes:,} | "
        f"{_ratio(plan.pool_bytes, plan.tensor_level_bytes)} |",
        f"| TFLite Micro arena head, measured | {f'{tflm_head:,}' if tflm_head else unmeasured} "
        f"| {_ratio(plan.pool_bytes, tflm_head)} |",
        "",
        f"Values are checked against {oracle}."
        + (f" State kept between runs (variable tensors: {len(state.offsets)}): {state.bytes:,} bytes "
           "in the application's state region, apart from the pool." if state.bytes else ""),
        "",
        f"{len(plan.steps)} steps, {plan.macs:,} MACs{recomputed}, about {sum(predicted):,} instructions on a {core} "
        "(`cost.py`'s prediction: each step's kernel configuration times instructions per unit fitted to profiled runs; "
        "`vmcu-validate --profile` measures them). A step's footprint is the pool bytes held while it runs; "
        "beside it, the most its layers hold in the whole-tensor plan of the layers (a fused chain's: the largest of "
        "its layers apart). "
        "Modes: `segment` writes the output over input segments already consumed, `in-place` works "
        "channel segment by channel segment through a workspace, `whole-tensor` keeps input and output apart."
        + (" `view`: the output is a run of the input's bytes and stays on them (the copy moves each byte onto itself; "
           "`planner/views.py`)." if views else ""),
        "",
        "| step | kernel | TFLite ops | output | mode | segment B | gap segments | workspace B | footprint B "
        f"| its layers at whole-tensor level B | predicted instructions ({core}) |",
        "|---:|---|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for step, layers_held, instructions in zip(plan.steps, baseline.footprints, predicted):
        outputs = program.steps[step.index].outputs
        shape = "x".join(map(str, graph.tensors[outputs[0]].shape)) if outputs else "(state only)"
        mode = "view" if step.index in views else step.mode
        lines.append(f"| {step.index} | {step.kernel} | {', '.join(map(str, step.ops))} | {shape} | {mode} | "
                     f"{step.segment_bytes} | {step.gap_segments} | {step.workspace_bytes} | "
                     f"{step.footprint_bytes:,} | {layers_held:,} | {instructions:,} |")
    chains = tuple(f for f in plan.fusion if f.label != GROUP)
    if chains:
        lines += ["", "## Fused chains", "",
                  "Chains of layers run as one step whose intermediates never reach the pool; their rings of rows "
                  "are the step's workspace. A chain is fused when its step "
                  "must hold fewer bytes than the largest of its layers' steps, unless its layers apart fit in the pool "
                  f"({plan.pool_bytes:,} B) and unfusing them keeps it: there fusing saves nothing and the layers apart "
                  "run in fewer instructions.", "",
                  "| TFLite ops | layers | fused | rings B | layers' largest step B | fused step B | saved B "
                  "| recomputed MACs |",
                  "|---|---|---|---:|---:|---:|---:|---:|"]
        kinds = {op.index: op.kind for op in graph.ops}
        rings = {step.ops: planned.workspace_bytes for step, planned in zip(program.steps, plan.steps)}
        for f in chains:
            saved = f.unfused_bytes - f.fused_bytes if f.fused else 0
            layers = ", ".join(kinds[op] for op in f.ops if op in kinds)
            lines.append(f"| {f.ops[0]}-{f.ops[-1]} | {layers} | {'yes' if f.fused else 'no'} | "
                         f"{rings.get(f.ops, 0):,} | {f.unfused_bytes:,} | {f.fused_bytes:,} | {saved:,} | "
                         f"{f.recomputed_macs if f.fused and f.recompute else 0:,} |")
    lines += _groups(program)
    lines += ["", f"Build the `vmcu_model` library for {target} in this folder: `{BUILD[target]}`.",
              "", f"Kernels tuned for {TUNED_FOR[plan.tuning]} "
                  f"(`{plan.tuning}`; they build and run bit-exact on every core)."]
    lines += _streaming(program)
    if plan.steps:
        lines += ["", f"Peak: {explain_peak(program)}."]
    return "\n".join(lines) + "\n"


def _groups(program: Program) -> list[str]:
    """The int16 element-wise groups: their operators, block buffers and what grouping saved."""
    groups = [f for f in program.plan.fusion if f.label == GROUP]
    if not groups:
        return []
    kinds = {op.index: op.kind for op in program.graph.ops}
    steps = {step.ops: step for step in program.steps}
    lines = ["", "## Element-wise groups", "",
             "Consecutive int16 element-wise steps over one shape run as one INT16_GROUP step that walks the elements "
             "in blocks: for each block the operators run in order, reading the group's inputs from the pool and the "
             "values made inside the group from block buffers (the step's workspace); only the last operator's output "
             "reaches the pool, written over input elements already read. A group is kept when its step must hold "
             "fewer bytes than the largest of its operators' steps and the pool gets smaller.", "",
             "| TFLite ops | operators | grouped | block elements | block buffers | workspace B "
             "| operators' largest step B | group step B | saved B |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for f in groups:
        step = steps.get(f.ops)
        block, buffers = (step.params.block, step.params.buffers) if step is not None else (0, 0)
        saved = f.unfused_bytes - f.fused_bytes if f.fused else 0
        lines.append(f"| {f.ops[0]}-{f.ops[-1]} | {', '.join(kinds[op] for op in f.ops if op in kinds)} | "
                     f"{'yes' if f.fused else 'no'} | {block} | {buffers} | {block * buffers * 2:,} | "
                     f"{f.unfused_bytes:,} | {f.fused_bytes:,} | {saved:,} |")
    return lines


def _streaming(program: Program) -> list[str]:
    """Which inputs and outputs stream, where each input's rows go, and what that saved."""
    streamed = program.plan.streamed_io
    if not streamed:
        return []
    lines = ["", "## Streamed inputs and outputs", "",
             f"Pool {program.plan.pool_bytes:,} B with streaming, {streamed.pool_bytes_whole:,} B with the inputs "
             "and outputs whole in the pool. Rows go through the application's callbacks (`vmcu_invoke_streamed()`), "
             "each once and in order.", "",
             "| port | rows x bytes | step | where the rows go |", "|---|---:|---:|---|"]
    for port in streamed.inputs:
        step = program.steps[port.step]
        if port.parts:
            pulling = [s.index for s in program.steps if getattr(s.params, "pulls_input", None) == port.index]
            where = (f"each row straight into its UNPACK part, pulled by a step of its own just before the first step "
                     f"that reads the part (steps {', '.join(map(str, pulling))}): the input never exists whole")
        elif port.in_ring:
            rows = step.params.input_ring_rows
            where = (f"a ring of {rows} rows ({step.params.input_ring_bytes:,} B) in the workspace of the chain "
                     "that reads it: the input never exists whole")
        else:
            where = (f"its place in the pool, whole, before step {port.step} ({step.kernel}), which cannot "
                     "pull rows itself or would need more pool doing so: no saving")
        lines.append(f"| input {port.index} | {port.rows} x {port.row_bytes} | {port.step} | {where} |")
    for port in streamed.outputs:
        where = (f"handed over by step {port.step} as it makes each row, from a ring of one row "
                 f"({program.steps[port.step].params.output_ring_bytes:,} B) in its workspace: the output never "
                 "exists whole" if port.in_ring else f"handed over after step {port.step} makes it")
        lines.append(f"| output {port.index} | {port.rows} x {port.row_bytes} | {port.step} | {where} |")
    return lines
