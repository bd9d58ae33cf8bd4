"""The op specs and everything derived from them agree: Python registries, the reference
interpreter's kernels, the rules table, and the C runtime's kinds and kernels."""
from __future__ import annotations

import re
from pathlib import Path

from vmcu_reference.ops import KERNELS
from vmcu_tflite.codegen import kinds_header
from vmcu_tflite.model_rules import arity
from vmcu_tflite.ops import SPECS, SUPPORTED_OPS

INCLUDE = Path(__file__).resolve().parents[1] / "csrc" / "include" / "vmcu"


def test_every_spec_has_a_reference_kernel_and_no_kernel_lacks_a_spec():
    assert set(KERNELS) == set(SPECS)


def test_every_supported_op_has_its_arity_rule():
    assert all(arity(kind) is not None for kind in SUPPORTED_OPS), [k for k in SUPPORTED_OPS if arity(k) is None]


def test_kinds_header_is_generated_from_the_specs():
    assert kinds_header.HEADER.read_text() == kinds_header.render(), (
        "csrc/include/vmcu/vmcu_kinds.h is stale: run python -m vmcu_tflite.codegen.kinds_header")


def test_kind_enumerators_keep_builtin_names_and_spell_custom_codes_in_upper_snake_case():
    assert kinds_header.kind_constant("CONV_2D") == "VMCU_KIND_CONV_2D"
    assert kinds_header.kind_constant("AVERAGE_POOL_2D_S16") == "VMCU_KIND_AVERAGE_POOL_2D_S16"
    assert kinds_header.kind_constant("SignalFilterBankLog") == "VMCU_KIND_SIGNAL_FILTER_BANK_LOG"


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
        generated = name in {"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "LAYER_CHAIN", "PULLED_ROW"}
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


# added by vmcu_tflite.passes (CALL_ONCE's `initial` by vmcu_tflite.resources), not read from the model
PASS_OPTIONS = {"folded_padding", "folded_upsample", "split_begin", "unpack_outputs", "dequantized", "output_part",
                "initial", "fft_auto_scale_part", "fft_auto_scale_size", "fft_auto_scale_ranks", "noise_output",
                "noise_copy"}


def _option_reads(source: str) -> list[tuple[str, str | None]]:
    """(name, fallback literal or None) of every options read in a module's source: attributes
    (`op.options.stride_h`, which fall back to TFLite Micro's zero) and mapping lookups."""
    reads = [(k, d.strip()) for k, d in re.findall(r"""(?:options|\bo)\.get\("(\w+)",\s*([^)]*?)\)""", source)]
    reads += [(k, None) for k in re.findall(r"""(?:options|\bo)\["(\w+)"\]""", source)]
    return reads + [(k, None) for k in re.findall(r"(?:options|\bo)\.(\w+)", source) if k not in ("get", "with_values")]


def _schema_fields(class_name: str) -> set[str]:
    import importlib

    cls = getattr(importlib.import_module(f"tflite.{class_name}"), class_name)
    accessors = [a for a in dir(cls) if a[0].isupper() and not a.startswith(("GetRootAs", "Init"))
                 and not a.endswith(("BufferHasIdentifier", "Length", "IsNone", "AsNumpy"))]
    return {re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", a).lower() for a in accessors}


def _module_sources(module_name: str, seen: set[str], top: bool = True) -> str:
    """A spec module's source and that of the helper modules it imports from (modules of other
    specs are checked as their own op; common.py's fused activation is handled apart)."""
    import importlib

    module = importlib.import_module(module_name)
    if module_name in seen or module_name.endswith(".common") or (not top and hasattr(module, "SPEC")):
        return ""
    seen.add(module_name)
    source = Path(module.__file__).read_text()
    package = module_name.rsplit(".", 1)[0]
    for stem in re.findall(r"^from \.(\w+) import", source, re.M):
        source += _module_sources(f"{package}.{stem}", seen, top=False)
    return source


def _check_reads(name: str, reads, fields: set[str], class_name: str, table_required: bool) -> None:
    for key, default in reads:
        assert key in fields, f"{name} reads '{key}', not a field of {class_name}"
        if not table_required and default is not None:
            assert default in ("0", "0.0", "False", "()"), f"{name}: '{key}' falls back to {default}"


def test_op_options_read_are_fields_of_the_op_options_table_with_tflite_micro_defaults():
    """Options are read by name from TFLite's table: each name must be a field of the op's options
    type (an attribute that is not raises at run time, but only where the code runs), and where a
    mapping lookup's table may be absent its fallback must be what TFLite Micro then uses (its
    params are zero-initialized). The fused activation is read by common.fused_activation for the
    ops that call it."""
    import inspect

    from vmcu_tflite.folding import FOLDABLE

    checked = 0
    for name, spec in SPECS.items():
        if not spec.is_tflite_op or spec.custom:  # a custom op's options are its flexbuffer map, no table
            continue
        source = _module_sources(spec.prepare.__module__, set())
        reads = [(k, d) for k, d in _option_reads(source) if k not in PASS_OPTIONS]
        if "fused_activation(" in source or "requantization(" in source:
            reads.append(("fused_activation_function", None))
        if not reads:
            continue
        assert spec.options is not None, f"{name} reads options {reads} but has no options type"
        _check_reads(name, reads, _schema_fields(spec.options), spec.options, spec.options_required)
        checked += 1
    folded_types = {"SHAPE": "ShapeOptions", "STRIDED_SLICE": "StridedSliceOptions", "PACK": "PackOptions",
                    "CONCATENATION": "ConcatenationOptions", "GATHER": "GatherOptions"}
    for name, (_, _, compute) in FOLDABLE.items():
        reads = _option_reads(inspect.getsource(compute))
        if reads:
            _check_reads(name, reads, _schema_fields(folded_types[name]), folded_types[name], False)
            checked += 1
    assert checked >= 19  # every op and folding that reads options today
