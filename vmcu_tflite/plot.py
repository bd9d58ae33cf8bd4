"""memory.png: per-step footprint (ours vs whole-tensor, fused chains shaded) and where each buffer
sits in the pool (workspaces hatched)."""
from __future__ import annotations

from pathlib import Path

from .layer_baseline import LayerBaseline
from .plan import Plan


def render_memory_plot(plan: Plan, baseline: LayerBaseline, path: Path, tflm_head: int | None = None) -> None:
    memory_figure(plan, baseline, tflm_head).savefig(path, dpi=110)


def memory_figure(plan: Plan, baseline: LayerBaseline, tflm_head: int | None = None):
    """The figure as a matplotlib Figure, made without pyplot: no backend is chosen or changed, so
    it saves from a script and shows in a notebook alike. Each step is drawn against what its
    layers hold at whole-tensor level (`layer_baseline`)."""
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    steps = [s.index for s in plan.steps]
    fig = Figure(figsize=(10, 8))
    top, bottom = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [1, 1.3]})
    top.step(steps, [b / 1024 for b in baseline.footprints], where="mid", label="its layers at whole-tensor level")
    top.step(steps, [s.footprint_bytes / 1024 for s in plan.steps], where="mid", label=f"{plan.planner} plan")
    if tflm_head:
        top.axhline(tflm_head / 1024, color="grey", linestyle=":", label="TFLite Micro arena head")
    top.axhline(plan.pool_bytes / 1024, color="C1", linestyle="--", linewidth=0.8, label=f"{plan.planner} pool")
    chains = [s.index for s in plan.steps if s.kernel == "LAYER_CHAIN"]
    for k, index in enumerate(chains):  # a chain's layers are one step: its rings are in its footprint
        top.axvspan(index - 0.5, index + 0.5, color="C2", alpha=0.15, label="fused chain" if k == 0 else None)
    top.set_ylabel("KiB held during the step")
    top.set_title(f"{plan.model}: pool {plan.pool_bytes:,} B ({plan.planner}) vs {plan.tensor_level_bytes:,} B "
                  "(the layers at whole-tensor level)")
    top.legend(loc="upper right", fontsize="small")

    # Pool occupancy: one rectangle per buffer and lifetime, split where it wraps around the pool.
    pool = plan.pool_bytes
    for tensor, buffer in plan.buffers.items():
        start, size = plan.offsets[tensor] % pool, buffer.size
        pieces = [(start, min(size, pool - start))]
        if start + size > pool:
            pieces.append((0, start + size - pool))
        style = (dict(facecolor="none", edgecolor="red", hatch="////", linewidth=0.8) if tensor < 0 else
                 dict(facecolor=f"C{tensor % 10}", edgecolor="black", linewidth=0.3, alpha=0.55))
        for lo, length in pieces:
            bottom.add_patch(Rectangle((buffer.first - 0.45, lo / 1024), buffer.last - buffer.first + 0.9, length / 1024,
                                       **style))
    bottom.set_xlim(-1, max(steps, default=0) + 1)
    bottom.set_ylim(0, pool / 1024)
    bottom.set_xlabel("step")
    bottom.set_ylabel("pool address (KiB)")
    bottom.set_title("buffers in the circular pool (red hatching: step workspaces, the rings of chains and "
                     "in-place depthwise planes)", fontsize="small")
    fig.tight_layout()
    return fig
