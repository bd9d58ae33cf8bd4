"""NOISE_ESTIMATE: a SignalFilterBankSpectralSubtraction's second output, its noise estimate, copied
from the state region where the op keeps it (see `signal_filter_bank_spectral_subtraction`; the
passes create this step, and that module's prepare its params)."""
from __future__ import annotations

from ..codegen.params.signal import emit_noise_estimate
from .spec import OpSpec

KIND = "NOISE_ESTIMATE"

SPEC = OpSpec(KIND, kind_id=60, emit=emit_noise_estimate, c_kernel="vmcu_signal_noise_estimate")
