"""The table fuzzer: a converted model's C tables with one integer changed, run under ASan + UBSan.

For a compiled model this writes a host program: the generated model C and a main.c that keeps a
writable RAM copy of every table reachable from `<prefix>_model` (the model struct, its tensors,
steps, inputs, outputs and initial-state entries, each step's params struct and the params structs
those point to: a chain's layers, its residual ADD), the copies pointing at each other. Every
integer field of those copies is a mutation site; its list comes from vmcu_types.h (c_layout.py),
so a field added to the runtime is fuzzed without a second list here. Weights, constant arrays,
pointers and the I/O's float scale are not mutated.

A mutant is one site set to one value. The program reads mutants from its standard input; for
each it restores every copy from the const tables, applies the mutant, asks vmcu_verify_model()
about it (it must be refused), runs vmcu_invoke_streamed() in buffers sized from the original
model, with a fresh zeroed state, random pool bytes and row callbacks that write random rows in and
read every byte of the rows out (a mutant that makes a port streamed runs them), then
vmcu_reset_state(), and prints the statuses.
A sanitizer report or a crash ends the program; the driver records the mutant it was running and
starts again after it, so that one run reports every failing mutant.

    python -m tests.c.table_fuzz --models models/*.tflite     # every mutant of every model
"""
from __future__ import annotations

from .driver import HANG_SECONDS, STATUSES, Failure, Mutant, Outcome, Result, run_mutants, sample, summary
from .program import CC, FuzzTarget, build_runtime, render_main
from .sites import VALUE_CLASSES, Site, cast, integer_sites, model_tables, site_values

__all__ = ["CC", "HANG_SECONDS", "STATUSES", "VALUE_CLASSES", "Failure", "FuzzTarget", "Mutant", "Outcome", "Result",
           "Site", "build_runtime", "cast", "integer_sites", "model_tables", "render_main", "run_mutants", "sample",
           "site_values", "summary"]
