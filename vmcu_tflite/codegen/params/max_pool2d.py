"""vmcu_pool_params from PoolParams (MAX_POOL_2D)."""
from __future__ import annotations

from .average_pool2d import emit

__all__ = ["emit"]
