"""The fuzzing program: the model's C and a main.c over RAM copies of its tables, built with the sanitizers."""
from __future__ import annotations

import os
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from vmcu_tflite.codegen.c_layout import INTEGER_TYPES
from vmcu_tflite.codegen.model_c import c_identifier
from vmcu_tflite.codegen.project import render_project, runtime_dir
from vmcu_tflite.pipeline import Program, compile_model

from .driver import HANG_SECONDS, SANITIZER_ENV, Mutant, Result, run_mutants
from .sites import Site, model_tables, site_values

CC = shutil.which("gcc")
CFLAGS = ("-std=gnu99", "-O0", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined",
          "-fno-sanitize-recover=all", "-Wall", "-Wextra")
TYPE_CODES = {ctype: code for code, ctype in enumerate(INTEGER_TYPES)}  # main.c's switch


MAIN = r"""/* The table fuzzer's host program (tests/c/table_fuzz/): generated, do not edit. */
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

/* The application's side of streamed ports: random rows in (every byte the runtime says is the
   row's written), every byte of the rows out read; ASan reports a row that leaves the pool. */
static uint32_t stream_sum;

static int32_t read_row(void *context, uint32_t input, uint32_t row, int8_t *dst, uint32_t bytes)
{
    (void)context;
    (void)input;
    (void)row;
    fill_random(dst, bytes);
    return 0;
}

static int32_t write_row(void *context, uint32_t output, uint32_t row, const int8_t *src, uint32_t bytes)
{
    uint32_t b;
    (void)context;
    (void)output;
    (void)row;
    for (b = 0; b < bytes; ++b) {
        stream_sum += (uint8_t)src[b];
    }
    return 0;
}

int main(int argc, char **argv)
{
    const vmcu_stream stream = {read_row, write_row, 0};
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
        stream_sum = 0;
        invoked = vmcu_invoke_streamed(&fz_model, &memory, &stream, &failed);
        sum += stream_sum;
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
        "sites": ",\n    ".join(f"{{&{s.lvalue}, {TYPE_CODES[s.ctype]}}} /* {s.name} */" for s in tables.sites),
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


class FuzzTarget:
    """A model's fuzzing program, built once: its sites, their original values, and runs of mutants."""

    def __init__(self, model: Path, work: Path, runtime: Path, planner: str = "vmcu", fuse: bool = True,
                 stream_inputs: tuple[int, ...] = (), stream_outputs: tuple[int, ...] = ()) -> None:
        self.model = Path(model)
        program = compile_model(self.model, planner, fuse=fuse, stream_inputs=stream_inputs,
                                stream_outputs=stream_outputs)
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
                               "-lm", "-o", str(self.exe)], capture_output=True, text=True)
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
