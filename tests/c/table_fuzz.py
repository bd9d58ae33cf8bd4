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
about it (it must be refused), runs vmcu_invoke() in buffers sized from the original model, with
a fresh zeroed state and random pool bytes, then vmcu_reset_state(), and prints the statuses.
A sanitizer report or a crash ends the program; the driver records the mutant it was running and
starts again after it, so that one run reports every failing mutant.

    python -m tests.c.table_fuzz --models models/*.tflite     # every mutant of every model
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from vmcu_tflite.codegen.c_layout import INTEGER_TYPES, structs
from vmcu_tflite.codegen.cwriter import CWriter
from vmcu_tflite.codegen.integrity import parse_initializer
from vmcu_tflite.codegen.model_c import buffer_order, c_identifier, emit_step_params
from vmcu_tflite.codegen.project import render_project, runtime_dir
from vmcu_tflite.errors import ModelError
from vmcu_tflite.pipeline import Program, compile_model
from vmcu_tflite.state import state_layout

CC = shutil.which("gcc")
CFLAGS = ("-std=gnu99", "-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined",
          "-fno-sanitize-recover=all", "-Wall", "-Wextra")
SANITIZER_ENV = {"ASAN_OPTIONS": "detect_leaks=0:halt_on_error=1:abort_on_error=0",
                 "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1"}
STATUSES = {0: "OK", 1: "POOL_TOO_SMALL", 2: "BAD_MODEL", 3: "UNSUPPORTED", 4: "BAD_ARGUMENT",
            5: "SCRATCH_TOO_SMALL", 6: "STATE_TOO_SMALL"}  # vmcu_status
HANG_SECONDS = 10  # one mutant's verify + run + reset (a real model takes milliseconds)

# The values a site takes, by class: fixed ones, then ones relative to the site's original value.
FIXED_VALUES = {"0": 0, "1": 1, "-1": -1, "2": 2, "16": 16, "256": 256, "65536": 1 << 16, "2^30": 1 << 30,
                "INT32_MAX": (1 << 31) - 1, "INT32_MIN": -(1 << 31)}
RELATIVE_VALUES = {"+1": lambda v: v + 1, "-1 off": lambda v: v - 1, "x2": lambda v: 2 * v}
VALUE_CLASSES = (*FIXED_VALUES, *RELATIVE_VALUES)
_TYPE_CODES = {ctype: code for code, ctype in enumerate(INTEGER_TYPES)}  # main.c's switch


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


# -- the tables: RAM copies and integer sites -----------------------------------------------------

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


MAIN = r"""/* The table fuzzer's host program (tests/c/table_fuzz.py): generated, do not edit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "%(header)s"

/* RAM copies of every table reachable from the model, pointing at each other. */
%(declarations)s

/* Every copy as the converter wrote it: the const tables copied, the pointers re-aimed. */
static void restore(void)
{
    const vmcu_model *const original = &%(model)s;
    %(restore)s
}

typedef struct {
    void *at;
    int type; /* int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t */
} site;

static site const sites[] = {
    %(sites)s
};

static long long read_site(const site *s)
{
    switch (s->type) {
    case 0: return *(int8_t *)s->at;
    case 1: return *(uint8_t *)s->at;
    case 2: return *(int16_t *)s->at;
    case 3: return *(uint16_t *)s->at;
    case 4: return *(int32_t *)s->at;
    default: return *(uint32_t *)s->at;
    }
}

/* `value` is already of the site's type (the driver cast it). */
static void write_site(const site *s, long long value)
{
    switch (s->type) {
    case 0: *(int8_t *)s->at = (int8_t)value; break;
    case 1: *(uint8_t *)s->at = (uint8_t)value; break;
    case 2: *(int16_t *)s->at = (int16_t)value; break;
    case 3: *(uint16_t *)s->at = (uint16_t)value; break;
    case 4: *(int32_t *)s->at = (int32_t)value; break;
    default: *(uint32_t *)s->at = (uint32_t)value; break;
    }
}

static uint32_t random_state;

static uint8_t next_random(void)
{
    random_state ^= random_state << 13;
    random_state ^= random_state >> 17;
    random_state ^= random_state << 5;
    return (uint8_t)random_state;
}

static void fill_random(int8_t *bytes, uint32_t n)
{
    uint32_t i;
    for (i = 0; i < n; ++i) {
        bytes[i] = (int8_t)next_random();
    }
}

int main(int argc, char **argv)
{
    const vmcu_model *const original = &%(model)s;
    const long num_sites = (long)(sizeof sites / sizeof sites[0]);
    /* Buffers of exactly the sizes the original model asks for: ASan reports a byte past them. */
    int8_t *pool = (int8_t *)malloc(original->pool_bytes);
    int8_t *scratch = (int8_t *)malloc(original->scratch_bytes > 0 ? original->scratch_bytes : 1u);
    int8_t *state = original->state_bytes > 0 ? (int8_t *)malloc(original->state_bytes) : (int8_t *)0;
    const vmcu_memory memory = {pool, original->pool_bytes, scratch, original->scratch_bytes, state,
                                original->state_bytes};
    const unsigned hang_seconds = argc > 1 ? (unsigned)atoi(argv[1]) : 10u;
    long id, index;
    long long value;
    long i;
    if (%(counts_differ)s) {
        fprintf(stderr, "the model's counts are not those the copies were generated for\n");
        return 3;
    }
    restore();
    if (argc > 1 && strcmp(argv[1], "--sites") == 0) { /* each site's original value */
        for (i = 0; i < num_sites; ++i) {
            printf("%%lld\n", read_site(&sites[i]));
        }
        return 0;
    }
    /* One mutant per line: its id, its site (-1: none, the tables as written) and the value. */
    while (scanf("%%ld %%ld %%lld", &id, &index, &value) == 3) {
        vmcu_status verified, invoked, reset;
        uint16_t failed = 0xFFFFu;
        uint32_t k, sum = 0; /* of the output bytes, printed: the reads stay in the build */
        if (index >= num_sites) {
            fprintf(stderr, "no site %%ld\n", index);
            return 3;
        }
        restore();
        if (index >= 0) {
            write_site(&sites[index], value);
        }
        printf("start %%ld\n", id);
        fflush(stdout);
        alarm(hang_seconds); /* a hang ends the program (SIGALRM) */
        random_state = 2463534242u ^ (uint32_t)id;
        fill_random(pool, original->pool_bytes);
        fill_random(scratch, original->scratch_bytes);
        if (state != 0) {
            memset(state, 0, original->state_bytes);
        }
        verified = vmcu_verify_model(&fz_model);
        /* What an application does around a run, one index past its inputs and outputs too. */
        for (k = 0; k <= original->num_inputs; ++k) {
            int8_t *in = vmcu_input(&fz_model, pool, k);
            if (in != 0) {
                fill_random(in, fz_model.inputs[k].bytes);
            }
        }
        invoked = vmcu_invoke(&fz_model, &memory, &failed);
        for (k = 0; k <= original->num_outputs; ++k) {
            const int8_t *out = vmcu_output(&fz_model, pool, k);
            uint32_t b;
            for (b = 0; out != 0 && b < fz_model.outputs[k].bytes; ++b) {
                sum += (uint8_t)out[b];
            }
        }
        reset = vmcu_reset_state(&fz_model, &memory);
        alarm(0);
        printf("end %%ld %%d %%d %%u %%d %%u\n", id, (int)verified, (int)invoked, (unsigned)failed, (int)reset,
               (unsigned)sum);
        fflush(stdout);
    }
    free(pool);
    free(scratch);
    free(state);
    return 0;
}
"""


def render_main(program: Program, prefix: str, header: str) -> tuple[str, list[Site]]:
    tables, counts = model_tables(program, prefix)
    counts_differ = " || ".join(f"original->{name} != {n}" for name, n in counts.items())
    text = MAIN % {
        "header": header, "model": f"{prefix}_model",
        "declarations": "\n".join(tables.declarations),
        "restore": "\n    ".join(tables.restore),
        "sites": ",\n    ".join(f"{{&{s.lvalue}, {_TYPE_CODES[s.ctype]}}} /* {s.name} */" for s in tables.sites),
        "counts_differ": counts_differ,
    }
    return text, tables.sites


# -- building ---------------------------------------------------------------------------------------

def _compile(source: Path, obj: Path, includes: list[Path]) -> None:
    run = subprocess.run([CC, *CFLAGS, *(f"-I{i}" for i in includes), "-c", str(source), "-o", str(obj)],
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"{source.name} does not compile:\n{run.stderr[-4000:]}")


def build_runtime(out: Path) -> Path:
    """The runtime's sources compiled with the sanitizers, as a static library in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    sources = sorted((runtime_dir() / "src").rglob("*.c"))
    objects = [out / f"{s.parent.name}_{s.stem}.o" for s in sources]
    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        list(pool.map(lambda so: _compile(*so, [runtime_dir() / "include"]), zip(sources, objects)))
    library = out / "libvmcu_runtime_sanitized.a"
    subprocess.run(["ar", "rcs", str(library), *map(str, objects)], check=True)
    return library


@dataclass(frozen=True)
class Mutant:
    id: int
    site: int  # index into the sites, -1 for the tables as written
    value_class: str
    value: int


@dataclass(frozen=True)
class Outcome:
    """What the program printed for one mutant."""

    verified: int
    invoked: int
    failed_step: int
    reset: int


@dataclass(frozen=True)
class Failure:
    mutant: Mutant
    what: str  # "sanitizer", "crash", "hang", "bad status", "verified", "not run"
    report: str


@dataclass
class Result:
    model: str
    mutants: list[Mutant]
    outcomes: dict[int, Outcome]
    failures: list[Failure]
    seconds: float


class FuzzTarget:
    """A model's fuzzing program, built once: its sites, their original values, and runs of mutants."""

    def __init__(self, model: Path, work: Path, runtime: Path, planner: str = "vmcu", fuse: bool = True) -> None:
        self.model = Path(model)
        program = compile_model(self.model, planner, fuse=fuse)
        name = c_identifier(program.plan.model)
        files = render_project(program)
        work.mkdir(parents=True, exist_ok=True)
        for file, text in files.items():
            if file.endswith((".c", ".h")):
                (work / file).write_text(text)
        main, self.sites = render_main(program, name, f"{name}_model.h")
        (work / "fuzz_main.c").write_text(main)
        includes = [runtime_dir() / "include", work]
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(lambda s: _compile(work / s, work / f"{s[:-2]}.o", includes),
                          [f"{name}_model.c", "fuzz_main.c"]))
        self.exe = work / "table_fuzz"
        link = subprocess.run([CC, *CFLAGS, str(work / "fuzz_main.o"), str(work / f"{name}_model.o"), str(runtime),
                               "-o", str(self.exe)], capture_output=True, text=True)
        if link.returncode != 0:
            raise RuntimeError(f"{self.model.name}: the fuzzing program does not link:\n{link.stderr[-4000:]}")
        listed = subprocess.run([str(self.exe), "--sites"], capture_output=True, text=True, timeout=60,
                                env={**os.environ, **SANITIZER_ENV})
        if listed.returncode != 0:
            raise RuntimeError(f"{self.model.name}: listing the sites failed:\n{listed.stderr[-4000:]}")
        self.originals = [int(v) for v in listed.stdout.split()]
        assert len(self.originals) == len(self.sites)

    def mutants(self) -> list[Mutant]:
        """Every mutant: each site with each value class, in site order."""
        found = []
        for index, (site, original) in enumerate(zip(self.sites, self.originals)):
            for value_class, value in site_values(original, site.ctype):
                found.append(Mutant(len(found), index, value_class, value))
        return found

    def describe(self, mutant: Mutant) -> str:
        if mutant.site < 0:
            return "the tables as written"
        site = self.sites[mutant.site]
        return (f"{site.name} = {mutant.value} ({site.ctype}, was {self.originals[mutant.site]}, "
                f"class {mutant.value_class})")

    def run(self, mutants: list[Mutant], hang_seconds: int = HANG_SECONDS) -> Result:
        started = time.monotonic()
        outcomes, failures = run_mutants(self.exe, mutants, hang_seconds)
        return Result(self.model.stem, mutants, outcomes, failures, time.monotonic() - started)


PRISTINE = Mutant(-1, -1, "none", 0)  # the tables as the converter wrote them


def run_mutants(exe: Path, mutants: list[Mutant], hang_seconds: int = HANG_SECONDS
                ) -> tuple[dict[int, Outcome], list[Failure]]:
    """Run the tables as written, then `mutants`, in the fuzzing program `exe`, starting it again
    after each mutant that ends it. Failures: a sanitizer report, a crash, a hang, a mutant
    vmcu_verify_model() accepts, a status outside vmcu_status, tables as written that do not
    verify and run, a mutant never run."""
    by_id = {m.id: m for m in [PRISTINE, *mutants]}
    pending = [PRISTINE, *mutants]
    outcomes: dict[int, Outcome] = {}
    failures: list[Failure] = []
    while pending:
        lines = "".join(f"{m.id} {m.site} {m.value}\n" for m in pending)
        try:
            proc = subprocess.run([str(exe), str(hang_seconds)], input=lines, capture_output=True, text=True,
                                  timeout=60 + hang_seconds * len(pending), env={**os.environ, **SANITIZER_ENV})
            stdout, stderr, code = proc.stdout, proc.stderr, proc.returncode
        except subprocess.TimeoutExpired as e:  # only if the program's own alarm did not end it
            stdout, stderr, code = _text(e.stdout), _text(e.stderr), "timeout"
        running = None  # the mutant started and not ended
        for line in stdout.splitlines():
            words = line.split()
            if words[:1] == ["start"]:
                running = int(words[1])
            elif words[:1] == ["end"]:
                outcomes[int(words[1])] = Outcome(*(int(w) for w in words[2:6]))
                running = None
        if code == 0 and running is None:
            break
        if running is None:  # ended between mutants: nothing to blame, nothing to resume from
            failures.append(Failure(pending[0], "crash", f"exit {code}: {_report(stderr)}"))
            break
        what = "hang" if code in ("timeout", -signal.SIGALRM) else "sanitizer" if _is_sanitizer(stderr) else "crash"
        failures.append(Failure(by_id[running], what, f"exit {code}: {_report(stderr)}"))
        pending = pending[next(i for i, m in enumerate(pending) if m.id == running) + 1:]
    return outcomes, failures + _judge(by_id, outcomes, {f.mutant.id for f in failures})


def _judge(by_id: dict[int, Mutant], outcomes: dict[int, Outcome], ended: set[int]) -> list[Failure]:
    """The statuses' failures, and the mutants that were never run (`ended`: those that ended a run)."""
    found = []
    for mutant_id, mutant in by_id.items():
        outcome = outcomes.get(mutant_id)
        if outcome is None:
            if mutant_id not in ended:
                found.append(Failure(mutant, "not run", "the program stopped before it"))
            continue
        statuses = (outcome.verified, outcome.invoked, outcome.reset)
        if any(s not in STATUSES for s in statuses) or (mutant.site < 0 and statuses != (0, 0, 0)):
            found.append(Failure(mutant, "bad status", f"verify/invoke/reset returned {statuses}"))
        elif mutant.site >= 0 and outcome.verified == 0:
            found.append(Failure(mutant, "verified", "vmcu_verify_model() accepted it"))
    return found


def _text(data) -> str:
    if data is None:
        return ""
    return data.decode(errors="replace") if isinstance(data, bytes) else data


def _is_sanitizer(stderr: str) -> bool:
    return "AddressSanitizer" in stderr or "runtime error:" in stderr or "UndefinedBehaviorSanitizer" in stderr


def _report(stderr: str, frames: int = 4) -> str:
    """The sanitizer's first lines: its error line, the source line UBSan names, the first frames."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    keep = [line for line in lines if "ERROR:" in line or "runtime error:" in line or "SUMMARY:" in line]
    keep += [line for line in lines if line.startswith("#")][:frames]
    return "\n    ".join(keep or lines[-8:])


def sample(mutants: list[Mutant], sites: list[Site], count: int, seed: int = 0) -> list[Mutant]:
    """`count` of `mutants`, chosen deterministically: first one of every (table kind, value class)
    pair the mutants have, then at random. In id order."""
    if count >= len(mutants):
        return list(mutants)
    rng = random.Random(seed)
    shuffled = rng.sample(mutants, len(mutants))
    chosen: dict[int, Mutant] = {}
    covered = set()
    for m in shuffled:
        key = (sites[m.site].table, m.value_class)
        if key not in covered:
            covered.add(key)
            chosen[m.id] = m
    for m in shuffled:
        if len(chosen) >= count:
            break
        chosen.setdefault(m.id, m)
    return sorted(chosen.values(), key=lambda m: m.id)


def summary(target: FuzzTarget, result: Result) -> str:
    """Per model: mutants, how many vmcu_verify_model() refused, the statuses runs returned, failures."""
    ran = [result.outcomes[m.id] for m in result.mutants if m.id in result.outcomes]
    refused = sum(o.verified != 0 for o in ran)
    invoked = Counter(STATUSES.get(o.invoked, str(o.invoked)) for o in ran)
    tables = Counter(target.sites[m.site].table for m in result.mutants)
    lines = [f"{result.model}: {len(result.mutants)} mutants of {len(target.sites)} sites, {result.seconds:.1f} s",
             f"  mutants by table: {', '.join(f'{k} {v}' for k, v in sorted(tables.items()))}",
             f"  refused by vmcu_verify_model: {refused} of {len(ran)}",
             f"  vmcu_invoke: {', '.join(f'{k} {v}' for k, v in invoked.most_common())}",
             f"  failures: {len(result.failures)}"]
    for f in result.failures:
        lines.append(f"  - {f.what}: mutant {f.mutant.id}, {target.describe(f.mutant)}\n    {f.report}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.c.table_fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", type=Path, required=True, help=".tflite files")
    parser.add_argument("--limit", type=int, default=0, help="at most this many mutants per model (0: all)")
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed, with --limit")
    parser.add_argument("--planner", default="vmcu", help="the plan to convert with (vmcu, tensor, ...)")
    parser.add_argument("--no-fuse", action="store_true", help="convert without fusing layers into chains")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="models fuzzed at once")
    parser.add_argument("--hang-seconds", type=int, default=HANG_SECONDS, help="one mutant's time limit")
    parser.add_argument("--work", type=Path, help="where to build (default: a temporary directory)")
    args = parser.parse_args(argv)
    if CC is None:
        print("no gcc", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="vmcu-table-fuzz-") as temporary:
        return fuzz_models(args, args.work or Path(temporary))


def fuzz_models(args: argparse.Namespace, work: Path) -> int:
    runtime = build_runtime(work / "runtime")

    def fuzz(model: Path) -> tuple[int, int, str]:
        """(mutants, failures, summary) of one model; a model that does not build is one failure."""
        try:
            target = FuzzTarget(model, work / model.stem, runtime, args.planner, not args.no_fuse)
        except (RuntimeError, ModelError) as e:
            return 0, 1, f"{model.stem}: not built: " + "\n    ".join(str(e).splitlines()[:6])
        mutants = target.mutants()
        if args.limit:
            mutants = sample(mutants, target.sites, args.limit, args.seed)
        result = target.run(mutants, args.hang_seconds)
        return len(mutants), len(result.failures), summary(target, result)

    started, mutants, failures = time.monotonic(), 0, 0
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for count, failed, text in pool.map(fuzz, args.models):
            print(text, flush=True)
            mutants, failures = mutants + count, failures + failed
    print(f"{mutants} mutants of {len(args.models)} models, {failures} failures, "
          f"{time.monotonic() - started:.0f} s")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
