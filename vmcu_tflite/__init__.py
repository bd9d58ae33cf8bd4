"""vmcu-tflite: int8 TFLite models on microcontrollers in a circular pool, bit-exact with TFLite Micro.

The public API is what `__all__` names (README, "Python API"); every other module is private.
"""
from __future__ import annotations

from .api import Program, StepInfo, TensorInfo, Validation, convert
from .errors import BudgetError, DivergenceError, HazardError, MismatchError, ModelError, UsageError, VmcuError

__version__ = "0.1.0"
__all__ = ["convert", "Program", "TensorInfo", "StepInfo", "Validation", "VmcuError", "ModelError", "UsageError",
           "BudgetError", "HazardError", "MismatchError", "DivergenceError", "__version__"]
