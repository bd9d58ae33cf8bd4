"""The real models the benchmarks measure: ../shared/models, beside the repository (absent from a
user's clone, where the scripts say so and measure nothing)."""
from __future__ import annotations

from pathlib import Path

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "models"


def shared_models(names: tuple[str, ...] | None = None) -> list[Path]:
    """The models `names` (file stems; all of them by default) that are present, in that order."""
    if names is None:
        found = sorted(SHARED.glob("*.tflite")) if SHARED.is_dir() else []
    else:
        found = [SHARED / f"{name}.tflite" for name in names if (SHARED / f"{name}.tflite").is_file()]
    if not found:
        print("no models to measure (../shared/models is absent)")
    return found
