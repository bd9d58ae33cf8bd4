"""The op specs and everything derived from them agree: Python registries, the reference
interpreter's kernels, the rules table, and the C runtime's kinds and kernels."""
from __future__ import annotations

import re
from pathlib import Path

from vmcu_reference.ops import KERNELS
from vmcu_tflite.codegen import kinds_header
from vmcu_tflite.model_rules import ARITY
from vmcu_tflite.ops import SPECS, SUPPORTED_OPS

INCLUDE = Path(__file__).resolve().parents[1] / "csrc" / "include" / "vmcu"


def test_every_spec_has_a_reference_kernel_and_no_kernel_lacks_a_spec():
    assert set(KERNELS) == set(SPECS)


def test_every_supported_op_has_its_arity_rule():
    assert SUPPORTED_OPS <= set(ARITY), sorted(SUPPORTED_OPS - set(ARITY))


def test_kinds_header_is_generated_from_the_specs():
    assert kinds_header.HEADER.read_text() == kinds_header.render(), (
        "csrc/include/vmcu/vmcu_kinds.h is stale: run python -m vmcu_tflite.codegen.kinds_header")


def test_runtime_kernels_match_the_declared_ones():
    declared = set(re.findall(r"vmcu_status (vmcu_\w+)\(", (INCLUDE / "vmcu_kernels.h").read_text()))
    named = {s.c_kernel for s in SPECS.values() if s.c_kernel is not None}
    assert named == declared


def test_c_kinds_have_an_emitter_and_exactly_one_kind_of_kernel():
    """A kind the runtime runs calls either a runtime kernel or one generated from the kernel language."""
    for name, spec in SPECS.items():
        if spec.kind_id is None:
            assert spec.emit is None and spec.c_kernel is None, name
            continue
        assert spec.emit is not None, name
        generated = name in {"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "INVERTED_BOTTLENECK"}
        assert (spec.c_kernel is None) == generated, name


def test_params_structs_are_filled_by_field_name():
    """Designated initializers: a params struct whose fields were swapped would not compile."""
    from tests.c.kernel_models import elementwise_model
    from vmcu_tflite.codegen.project import render_project
    from vmcu_tflite.pipeline import compile_model

    source = next(text for name, text in render_project(compile_model(elementwise_model())).items()
                  if name.endswith("_model.c"))
    initializers = re.findall(r"static const vmcu_\w+ \w+ = (\{.*?\});\n", source, re.S)
    assert initializers and all(init.startswith("{.") for init in initializers), initializers[:3]


def test_readme_lists_the_supported_operators():
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    listed = re.search(r"Operators: (.*?), with fused", readme, re.S).group(1)
    assert set(re.split(r",\s+", listed.replace("\n", " "))) == SUPPORTED_OPS
