"""vmcu_elementwise_params from MaximumParams (MAXIMUM and MINIMUM): only the broadcast walk."""
from __future__ import annotations

from .add import broadcast
from .common import struct


def emit(step, graph, writer, name):
    return "vmcu_elementwise_params", struct(**broadcast(step, graph, writer, name, step.params))
