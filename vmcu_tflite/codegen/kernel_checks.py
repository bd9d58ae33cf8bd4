"""The check and the digest of a generated kernel, and the vmcu_kernel that ties them to it.

A generated kernel folds its shapes into its C, so only it knows what it touches: every pool role
(input, output, each workspace ring) to the byte, and which of them it reads through plain
pointers (no wrap test). Its check compares those constants with the step's tables before a run
(vmcu_check.h): a table that shrinks a tensor, moves it across the end of the pool, drops an
input or moves the workspace is refused instead of read past. It also checks the params its
arithmetic reads (offsets, clamps, a residual ADD's shifts) and that every layer it reads is there.

Its digest folds its params into the model's CRC in the runtime's canonical order (integrity.py):
the walk is generated from the same vmcu_types.h layout the converter's own CRC walks, with the
lengths of the constants (which only this configuration knows) as constants.
"""
from __future__ import annotations

import re

from ..kernels.ir import Kernel
from .c_layout import INTEGER_TYPES, structs
from .cwriter import CWriter
from .integrity import parse_initializer

LAYER_TYPES = ("vmcu_conv_params", "vmcu_depthwise_params", "vmcu_fully_connected_params")
_BYTES = {"int8_t": 1, "uint8_t": 1, "int16_t": 2, "uint16_t": 2, "int32_t": 4, "uint32_t": 4, "int64_t": 8}


def _role_check(role: str, size: int, flat: bool) -> str:
    if role == "output":
        tensor = "&model->tensors[step->output]"
    else:
        tensor = f"vmcu_input_tensor(model, step, {int(role[5:])}u)"
    return f"!vmcu_tensor_holds(model, {tensor}, {size}u, {int(flat)})"


class _Walk:
    """C lines of a params struct's checks and digest, from its initializer and the writer's objects."""

    def __init__(self, writer: CWriter, element: int = 1) -> None:
        """`element`: bytes per activation of the kernel's layers (2: 16x8, checked as such)."""
        self.element = element
        self.objects = writer.objects
        self.layouts = structs()
        self.checks: list[str] = []
        self.digest: list[str] = []

    def array_bytes(self, value: str) -> int:
        _, ctype, values = self.objects[value.lstrip("&")]
        return len(values) * _BYTES[ctype]

    def layer(self, expr: str, fields: dict) -> None:
        """A conv, depthwise or fully connected layer's params at `expr` (a pointer)."""
        requant = fields["requant"]
        channels = len(self.objects[requant["multiplier"]][2])
        bias_bytes = _BYTES[self.objects[fields["bias"]][1]]
        check = "vmcu_layer16_ok" if self.element == 2 else "vmcu_layer_ok"
        self.checks.append(f"!{check}({expr}->input_offset, {expr}->output_offset, &{expr}->requant)")
        self.digest.append(f"crc = vmcu_layer_digest(crc, {expr}->input_offset, {expr}->output_offset, "
                           f"{expr}->filter, {self.array_bytes(fields['filter'])}u, {expr}->bias, {channels}u, "
                           f"{bias_bytes}u, &{expr}->requant);")

    def struct(self, expr: str, ctype: str, init) -> None:
        """The struct `expr` points to, of type `ctype`, initialized by `init`."""
        fields = parse_initializer(init) if isinstance(init, str) else init
        if ctype in LAYER_TYPES:
            self.layer(expr, fields)
            return
        if ctype == "vmcu_binary_arith":
            self.checks.append(f"!vmcu_binary_arith_ok({expr})")
            self.digest.append(f"crc = vmcu_binary_arith_digest(crc, {expr});")
            return
        for field in self.layouts[ctype]:
            value = fields.get(field.name, "0")
            at = f"{expr}->{field.name}"
            if field.pointers == 0 and field.base in INTEGER_TYPES and field.length is None:
                self.digest.append(f"crc = vmcu_crc32_u32(crc, (uint32_t){at});")
            elif field.pointers == 0 and field.base in INTEGER_TYPES:
                self.digest.append(f"for (uint32_t i = 0; i < {field.length}u; ++i) {{ crc = vmcu_crc32_u32(crc, (uint32_t){at}[i]); }}")
            elif field.pointers == 0:
                raise ValueError(f"generated params with a nested {field.base}: no digest for it")
            elif value in ("0", "NULL"):  # not read by this configuration
                continue
            elif field.pointers == 2:  # a table of pointers to params structs, one per layer
                for j, item in enumerate(self.objects[value][2]):
                    if item in ("0", "NULL"):
                        continue
                    self.checks.append(f"{at}[{j}] == 0")
                    _, item_type, item_init = self.objects[item.lstrip("&")]
                    self.struct(f"{at}[{j}]", item_type, item_init)
            elif field.base in self.layouts:
                self.checks.append(f"{at} == 0")
                _, item_type, item_init = self.objects[value.lstrip("&")]
                self.struct(at, item_type, item_init)
            else:
                self.digest.append(f"crc = vmcu_crc32(crc, {at}, {self.array_bytes(value)}u);")


def kernel_checks(kernel: Kernel, name: str, whole: frozenset[str], params_type: str, init: str,
                  writer: CWriter) -> str:
    """C of `<name>_check`, `<name>_digest` and `<name>_kernel` for the generated kernel `name`."""
    roles = [r for r in kernel.tensors if r == "output" or re.fullmatch(r"input\d+", r)]
    inputs = 1 + max([int(r[5:]) for r in roles if r != "output"], default=-1)
    conditions = [f"step->num_inputs < {inputs}u"] if inputs else []
    conditions += [_role_check(r, kernel.tensors[r], r in whole) for r in sorted(roles)]
    conditions += [f"!vmcu_workspace_holds(model, step, {w.at}u, {w.capacity}u, {int(w.name in whole or w.wraps)})"
                   for w in kernel.workspaces]
    walk = _Walk(writer, kernel.element)
    walk.struct("p", params_type, init)
    conditions += walk.checks
    cast = f"const {params_type} *p = (const {params_type} *)step->params;"
    test = " ||\n        ".join(conditions) or "0"
    return (f"/* What {name} touches, against the step's tables; its params in the model's CRC. */\n"
            f"static vmcu_status {name}_check(const vmcu_model *model, const vmcu_step *step)\n{{\n"
            f"    {cast}\n    (void)p;\n"
            f"    if ({test}) {{\n        return VMCU_ERROR_BAD_MODEL;\n    }}\n    return VMCU_OK;\n}}\n\n"
            f"static uint32_t {name}_digest(const vmcu_step *step, uint32_t crc)\n{{\n    {cast}\n"
            + "".join(f"    {line}\n" for line in walk.digest)
            + f"    return crc;\n}}\n\n"
            f"static const vmcu_kernel {name}_kernel = {{.run = {name}, .check = {name}_check, .digest = {name}_digest}};\n")
