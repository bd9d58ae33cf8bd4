"""Placeholder: runs a single-op model by calling its kernel directly (replaced by the pool interpreter)."""
from __future__ import annotations

import numpy as np

from vmcu_tflite.ops import prepare
from vmcu_tflite.reader import parse_model
from .ops import make_kernel


def run_model_bytes(model: bytes, inputs):
    graph = parse_model(model)
    (op,) = graph.ops
    kernel = make_kernel(op.kind, prepare(graph, op))
    acts = graph.activations(op)
    feed = dict(zip([p.tensor for p in graph.inputs], inputs))
    return [kernel.run(*[np.asarray(feed[t]) for t in acts])]
