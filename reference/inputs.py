"""Model inputs and outputs as the application sees them: .npz files or seeded random values."""
from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Sequence

import numpy as np

from vmcu_tflite.errors import UsageError
from vmcu_tflite.graph import Graph


def random_inputs(graph: Graph, seed: int) -> list[np.ndarray]:
    """Uniform int8 values, or for a float input uniform reals over its quantized range (int8's, or int16's
    in a 16x8 model); an input of another integer type (an audio front end's int16 samples) takes uniform
    values over its type's range."""
    rng = np.random.default_rng(seed)
    values = []
    for port in graph.inputs:
        if port.dtype not in ("int8", "uint8", "float32") or graph.tensors[port.tensor].dtype == port.dtype != "int8":
            values.append(_uniform(rng, port.dtype, port.shape))
            continue
        wide = graph.tensors[port.tensor].dtype == "int16"  # a 16x8 model's float input: over the int16 grid
        q = _uniform(rng, "int16", port.shape) if wide else rng.integers(-128, 128, size=port.shape).astype(np.int8)
        if port.dtype == "uint8":
            values.append(q.view(np.uint8))
        elif port.dtype == "float32":
            t = graph.tensors[port.tensor]
            span = rng.uniform(-0.5, 0.5, size=port.shape)
            values.append(((q.astype(np.float64) - t.zero_point + span) * t.scale).astype(np.float32))
        else:
            values.append(q)
    return values


def _uniform(rng: np.random.Generator, dtype: str, shape) -> np.ndarray:
    if np.dtype(dtype).kind == "f":
        return rng.uniform(-1.0, 1.0, size=shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)


def load_inputs(path: Path, ports: Sequence, runs: int | None = None) -> list[np.ndarray]:
    """input_0, input_1, ... of an .npz, checked against the model's inputs `ports` (their dtypes);
    for a sequence of `runs`, each stacked as [runs, *its shape]."""
    try:
        with np.load(path) as data:
            missing = [f"input_{i}" for i in range(len(ports)) if f"input_{i}" not in data]
            if missing:
                raise UsageError(f"{path} lacks {', '.join(missing)}")
            values = [np.asarray(data[f"input_{i}"]) for i in range(len(ports))]
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as err:  # a truncated .npz is a bad zip
        raise UsageError(f"cannot read inputs from {path}: {str(err) or type(err).__name__}") from None
    for i, (port, value) in enumerate(zip(ports, values)):
        if value.dtype != np.dtype(port.dtype):
            raise UsageError(f"input_{i} is {value.dtype}, the model takes {port.dtype}")
        if runs is not None and tuple(value.shape) != (runs, *port.shape):
            raise UsageError(f"input_{i} has shape {tuple(value.shape)}; {runs} runs need {(runs, *port.shape)}")
    return values


def save_outputs(path: Path, outputs: Sequence[np.ndarray]) -> None:
    try:
        np.savez(path, **{f"output_{i}": out for i, out in enumerate(outputs)})
    except OSError as err:
        raise UsageError(f"cannot write outputs to {path}: {err.strerror or err}") from None
