"""Models the tests run: small synthetic ones built here, fixtures in models/, real ones in ../shared/models."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.tflite_builder import ModelBuilder, random_bias, random_weights

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "models").glob("*.tflite"))
SHARED = ROOT.parent / "shared" / "models"
REAL_MODELS = sorted(SHARED.glob("*.tflite")) if SHARED.is_dir() else []


def conv_chain(channels=(3, 8, 4), hw: int = 6, seed: int = 0) -> bytes:
    """1x1 convolutions one after another: the smallest graph with a real plan."""
    rng = np.random.default_rng(seed)
    b = ModelBuilder()
    x = b.tensor((1, hw, hw, channels[0]), scale=0.05, zero_point=-3)
    b.inputs = [x]
    for c_in, c_out in zip(channels, channels[1:]):
        w = b.const(random_weights(rng, (c_out, 1, 1, c_in)), scale=[0.01] * c_out, zero_point=0, axis=0)
        bias = b.const(random_bias(rng, c_out), scale=[0.0005] * c_out, zero_point=0)
        y = b.tensor((1, hw, hw, c_out), scale=0.1, zero_point=2)
        b.op("CONV_2D", [x, w, bias], [y], padding=1, stride_h=1, stride_w=1)
        x = y
    b.outputs = [x]
    return b.build()
