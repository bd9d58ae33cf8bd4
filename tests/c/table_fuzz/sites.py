"""Mutation sites: every integer of a model's tables as a RAM copy names it, and the values each takes."""
from __future__ import annotations

from dataclasses import dataclass, field

from vmcu_tflite.codegen.c_layout import INTEGER_TYPES, structs
from vmcu_tflite.codegen.cwriter import CWriter
from vmcu_tflite.codegen.integrity import parse_initializer
from vmcu_tflite.codegen.model_c import buffer_order, emit_step_params
from vmcu_tflite.pipeline import Program
from vmcu_tflite.state import state_layout

# The values a site takes, by class: fixed ones, then ones relative to the site's original value.
FIXED_VALUES = {"0": 0, "1": 1, "-1": -1, "2": 2, "16": 16, "256": 256, "65536": 1 << 16, "2^30": 1 << 30,
                "INT32_MAX": (1 << 31) - 1, "INT32_MIN": -(1 << 31)}
RELATIVE_VALUES = {"+1": lambda v: v + 1, "-1 off": lambda v: v - 1, "x2": lambda v: 2 * v}
VALUE_CLASSES = (*FIXED_VALUES, *RELATIVE_VALUES)


def cast(value: int, ctype: str) -> int:
    """`value` converted to the integer type `ctype` as C does (modulo 2^bits)."""
    bits = 8 * INTEGER_TYPES[ctype]
    value &= (1 << bits) - 1
    return value - (1 << bits) if ctype.startswith("int") and value >= 1 << (bits - 1) else value


def site_values(original: int, ctype: str) -> list[tuple[str, int]]:
    """(class, value) of every mutant of a site: each class's value cast to the site's type, those
    equal to the original or to an earlier class's value left out."""
    candidates = [*FIXED_VALUES.items(), *((name, f(original)) for name, f in RELATIVE_VALUES.items())]
    seen = {original}
    values = []
    for name, value in candidates:
        value = cast(value, ctype)
        if value not in seen:
            seen.add(value)
            values.append((name, value))
    return values


@dataclass(frozen=True)
class Site:
    """An integer of the copied tables: `name` as a reader sees it (`steps[1].params.requant.act_min`),
    `lvalue` the C that names it in main.c, `ctype` its integer type."""

    name: str
    lvalue: str
    ctype: str

    @property
    def table(self) -> str:
        """Which kind of table it belongs to: model, tensors, steps, inputs, outputs, state_init, params."""
        if ".params" in self.name:
            return "params"
        return self.name.split("[")[0].split(".")[0]


def integer_sites(ctype: str, lvalue: str, name: str) -> list[Site]:
    """Every integer of a struct of type `ctype` (nested structs and array members included;
    pointers, floats and what they point to left out)."""
    layouts = structs()
    sites = []
    for f in layouts[ctype]:
        at, label = f"{lvalue}.{f.name}", f"{name}.{f.name}"
        if f.pointers:
            continue
        for index in [""] if f.length is None else [f"[{k}]" for k in range(f.length)]:
            if f.base in INTEGER_TYPES:
                sites.append(Site(label + index, at + index, f.base))
            elif f.base in layouts:
                sites += integer_sites(f.base, at + index, label + index)
    return sites


@dataclass
class Tables:
    """main.c's copies of a model's tables: their declarations, the C that fills them from the
    const originals (`original` is the model), and their integer sites."""

    declarations: list[str] = field(default_factory=list)
    restore: list[str] = field(default_factory=list)
    sites: list[Site] = field(default_factory=list)

    def array(self, ctype: str, field_name: str, count: int) -> None:
        """The model's array `field_name` of `count` entries."""
        if count == 0:
            return
        copy = f"fz_{field_name}"
        self.declarations.append(f"static {ctype} {copy}[{count}];")
        self.restore += [f"memcpy({copy}, original->{field_name}, sizeof {copy});", f"fz_model.{field_name} = {copy};"]
        for i in range(count):
            self.sites += integer_sites(ctype, f"{copy}[{i}]", f"{field_name}[{i}]")

    def params(self, ctype: str, init: str, objects: dict, copy: str, pointer: str, name: str) -> None:
        """A params struct of type `ctype` (its C initializer `init`) that `pointer` (a copy's
        field) points to: copied into `copy` and `pointer` aimed at it; then, in turn, the params
        structs its own pointers reach (`objects`: what the CWriter emitted, by C name)."""
        fields = parse_initializer(init)
        layouts = structs()
        self.declarations.append(f"static {ctype} {copy};")
        self.restore += [f"{copy} = *(const {ctype} *){pointer};", f"{pointer} = &{copy};"]
        self.sites += integer_sites(ctype, copy, name)
        for f in layouts[ctype]:
            value = fields.get(f.name, "0") if isinstance(fields, dict) else "0"
            if f.pointers == 0 or f.base not in layouts or value in ("0", "NULL"):
                continue  # an integer, a nested struct (copied with its parent) or a constant
            if f.pointers == 1:
                _, item_type, item_init = objects[value.lstrip("&")]
                self.params(item_type, item_init, objects, f"{copy}_{f.name}", f"{copy}.{f.name}", f"{name}.{f.name}")
                continue
            items = objects[value.lstrip("&")][2]  # a table of pointers to params structs
            table = f"{copy}_{f.name}"
            self.declarations.append(f"static const {f.base} *{table}[{len(items)}];")
            self.restore += [f"memcpy({table}, {copy}.{f.name}, sizeof {table});", f"{copy}.{f.name} = {table};"]
            for j, item in enumerate(items):
                if item not in ("0", "NULL"):
                    _, item_type, item_init = objects[item.lstrip("&")]
                    self.params(item_type, item_init, objects, f"{table}{j}", f"{table}[{j}]", f"{name}.{f.name}[{j}]")


def model_tables(program: Program, prefix: str) -> tuple[Tables, dict[str, int]]:
    """The copies of every table of `program`'s C and the counts the copies assume."""
    graph = program.graph
    counts = {"num_tensors": len(buffer_order(program)), "num_steps": len(program.steps),
              "num_inputs": len(graph.inputs), "num_outputs": len(graph.outputs),
              "num_state_init": len(state_layout(graph).initial)}
    tables = Tables(declarations=["static vmcu_model fz_model;"], restore=["fz_model = *original;"])
    tables.sites += integer_sites("vmcu_model", "fz_model", "model")
    for ctype, name, count in (("vmcu_tensor", "tensors", "num_tensors"), ("vmcu_step", "steps", "num_steps"),
                               ("vmcu_io", "inputs", "num_inputs"), ("vmcu_io", "outputs", "num_outputs"),
                               ("vmcu_state_init", "state_init", "num_state_init")):
        tables.array(ctype, name, counts[count])
    writer = CWriter(prefix)
    for i, (ctype, init) in enumerate(emit_step_params(program, writer)):  # fz_steps holds the originals' pointers
        tables.params(ctype, init, writer.objects, f"fz_step{i}_params", f"fz_steps[{i}].params", f"steps[{i}].params")
    return tables, counts
