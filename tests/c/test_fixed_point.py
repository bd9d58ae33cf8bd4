"""The runtime's fixed-point helpers against gemmlowp's definitions, written here in Python.

vmcu_srdhm computes SaturatingRoundingDoublingHighMul as one 64-bit add and shift (see its
comment for why that equals gemmlowp's round-toward-zero division); vmcu_requantize is TFLite's
MultiplyByQuantizedMultiplier, and vmcu_requantize_narrow the same for the accumulators,
multipliers and shifts the converter proves a layer stays within (|x| < 2^30, multipliers in
[2^30, 2^31), right shifts), from its tables' encoding of them (2m - 2^32 and r - 1), both through
its portable path and its DSP path (SMMLAR, emulated on the host). All run on the host over edge
values and many random ones. The interpreter's mirrors of them (`reference/c_arith.py`) must give
the same bits.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest


INCLUDE = Path(__file__).resolve().parents[2] / "csrc" / "include"
CC = shutil.which("gcc") or shutil.which("cc")
pytestmark = pytest.mark.skipif(CC is None, reason="no host C compiler")

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1

PROGRAM = r"""
#include <stdio.h>
#include "vmcu/vmcu_dsp.h"

int main(void)
{
    long a, b, shift;
    while (scanf("%ld %ld %ld", &a, &b, &shift) == 3) {
        const int narrow = shift <= -1 && a < (1L << 30) && a > -(1L << 30) && b >= (1L << 30);
        const long scaled = shift > 0 ? a * (1L << shift) : a;
        const int shifted = shift < 31 && scaled < (1L << 30) && scaled > -(1L << 30);
        printf("%ld %ld %ld %ld\n", (long)vmcu_srdhm((int32_t)a, (int32_t)b),
               (long)vmcu_requantize((int32_t)a, (int32_t)b, (int32_t)shift),
               narrow ? (long)vmcu_requantize_narrow((int32_t)a, (int32_t)(uint32_t)(2 * b), (int32_t)(-shift - 1),
                                                     (int32_t)(a & 255) - 128)
                      : 0L,
               shifted ? (long)vmcu_requantize_shifted((int32_t)a, (int32_t)b, (int32_t)shift, (int32_t)(a & 255) - 128)
                       : 0L);
    }
    return 0;
}
"""


def srdhm(a: int, b: int) -> int:
    """gemmlowp: (a * b + nudge) / 2^31 rounded toward zero, saturated for INT32_MIN * INT32_MIN."""
    if a == b == INT32_MIN:
        return INT32_MAX
    ab = a * b
    total = ab + ((1 << 30) if ab >= 0 else 1 - (1 << 30))
    quotient = abs(total) >> 31
    return quotient if total >= 0 else -quotient


def rdbpot(x: int, exponent: int) -> int:
    mask = (1 << exponent) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> exponent) + (1 if remainder > threshold else 0)


def requantize(x: int, multiplier: int, shift: int) -> int:
    left, right = max(shift, 0), max(-shift, 0)
    shifted = ((x << left) + (1 << 31)) % (1 << 32) - (1 << 31)  # int32 wrap, as the C's uint32 shift
    return rdbpot(srdhm(shifted, multiplier), right)


def cases() -> list[tuple[int, int, int]]:
    edges = [0, 1, -1, 2, -2, 3, -3, (1 << 30), -(1 << 30), (1 << 30) + 1, -(1 << 30) - 1, 1 << 16, -(1 << 16),
             INT32_MIN, INT32_MIN + 1, INT32_MAX, INT32_MAX - 1]
    out = [(a, b, s) for a in edges for b in edges for s in (0, -1, -7, -31, 1, 5)]
    rng = np.random.default_rng(11)
    for _ in range(40_000):
        a = int(rng.integers(INT32_MIN, INT32_MAX, endpoint=True)) >> int(rng.integers(0, 32))
        b = int(rng.integers(INT32_MIN, INT32_MAX, endpoint=True))
        multiplier = int(rng.integers(1 << 30, INT32_MAX, endpoint=True))  # TFLite's quantized multipliers
        out.append((a, b, int(rng.integers(-31, 8))))
        out.append((a, multiplier, int(rng.integers(-31, 1))))
        small = int(rng.integers(-(1 << 30) + 1, 1 << 30)) >> int(rng.integers(0, 31))  # a narrow layer's range
        out.append((small, multiplier, int(rng.integers(-31, 0))))
        out.append((small >> 7, multiplier, int(rng.integers(0, 8))))  # a stem's channels: shifts 0 or more
    return out


def _run_c(program: str, dsp: list[str], lines: list[str], tmp_path: Path) -> list[list[int]]:
    """Build `program` on the host against the runtime's headers, feed it `lines`, and read its output."""
    source, exe = tmp_path / "program.c", tmp_path / "program"
    source.write_text(program)
    build = subprocess.run([CC, "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}", *dsp, str(source),
                            "-o", str(exe)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(exe)], input="".join(lines), capture_output=True, text=True, timeout=120)
    return [[int(v) for v in line.split()] for line in run.stdout.splitlines()]


@pytest.mark.parametrize("dsp", [[], ["-DVMCU_EMULATE_DSP"]], ids=["portable", "dsp"])
def test_fixed_point_helpers_match_gemmlowp(dsp, tmp_path):
    inputs = cases()
    got = _run_c(PROGRAM, dsp, [f"{a} {b} {s}\n" for a, b, s in inputs], tmp_path)
    assert len(got) == len(inputs)
    narrow = shifted = 0
    for (a, b, s), (c_srdhm, c_requantize, c_narrow, c_shifted) in zip(inputs, got):
        assert c_srdhm == srdhm(a, b), (a, b)
        if s <= 0 or abs(a) < (1 << (31 - s)):  # TFLite never shifts a value out of int32
            assert c_requantize == requantize(a, b, s), (a, b, s)
        if s <= -1 and abs(a) < (1 << 30) and b >= (1 << 30):
            assert c_narrow == requantize(a, b, s) + (a & 255) - 128, (a, b, s)  # with an output offset
            narrow += 1
        if abs(a) * (1 << max(s, 0)) < (1 << 30):
            assert c_shifted == requantize(a, b, s) + (a & 255) - 128, (a, b, s)  # any shift sign
            shifted += 1
    assert narrow > 20_000 and shifted > 40_000


def test_the_interpreters_arithmetic_is_the_cs(tmp_path):
    """reference/c_arith.py, which executes the kernel descriptions' Requantize, gives the bits of the
    C helpers it mirrors (their DSP path), edge values included, over every input (vmcu_srdhm,
    vmcu_requantize) or those each form is called for (the narrow and shifted forms)."""
    from vmcu_reference import c_arith
    inputs = cases()
    got = np.array(_run_c(PROGRAM, ["-DVMCU_EMULATE_DSP"], [f"{a} {b} {s}\n" for a, b, s in inputs], tmp_path))
    a, b, s = (np.array(column, dtype=np.int64) for column in zip(*inputs))
    offset = (a & 255) - 128
    np.testing.assert_array_equal(c_arith.srdhm(a, b), got[:, 0])
    np.testing.assert_array_equal(c_arith.requantize(a, b, s), got[:, 1])
    narrow = (s <= -1) & (np.abs(a) < (1 << 30)) & (b >= (1 << 30))
    m2, r1 = (2 * b) - (1 << 32), -s - 1  # the narrow tables' encoding (requant.tables)
    np.testing.assert_array_equal(c_arith.requantize_narrow(a, m2, r1, offset)[narrow], got[narrow, 2])
    shifted = (s < 31) & (np.abs(a * (np.int64(1) << np.maximum(s, 0))) < (1 << 30))
    np.testing.assert_array_equal(c_arith.requantize_shifted(a, b, s, offset)[shifted], got[shifted, 3])
    assert narrow.sum() > 20_000 and shifted.sum() > 40_000


ADD_PROGRAM = r"""
#include <stdio.h>
#include "vmcu/vmcu_dsp.h"

int main(void)
{
    long v[14];
    while (scanf("%ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                 &v[6], &v[7], &v[8], &v[9], &v[10], &v[11], &v[12], &v[13]) == 14) {
        vmcu_binary_arith p;
        int8_t a = (int8_t)v[0], b = (int8_t)v[1], out;
        int32_t *fields[12];
        int k;
        memset(&p, 0, sizeof p);
        fields[0] = &p.input1_offset, fields[1] = &p.input2_offset, fields[2] = &p.input1_multiplier;
        fields[3] = &p.input1_shift, fields[4] = &p.input2_multiplier, fields[5] = &p.input2_shift;
        fields[6] = &p.output_multiplier, fields[7] = &p.output_shift, fields[8] = &p.output_offset;
        fields[9] = &p.act_min, fields[10] = &p.act_max, fields[11] = &p.left_shift;
        for (k = 0; k < 12; ++k) {
            *fields[k] = (int32_t)v[k + 2];
        }
        vmcu_add_s8_run(&p, &a, 1, &b, 1, &out, 1);
        printf("%d %d\n", (int)out, (int)vmcu_add_pair(&p, a, b));
    }
    return 0;
}
"""


@pytest.mark.parametrize("dsp", [[], ["-DVMCU_EMULATE_DSP"]], ids=["portable", "dsp"])
def test_add_run_matches_add_pair(dsp, tmp_path):
    """vmcu_add_s8_run (the SMMULR form where TFLite's ADD parameters allow it) gives the bits of
    vmcu_add_pair (the general form) for ADDs prepared as TFLite does, over random scales."""
    lines = add_cases()
    got = _run_c(ADD_PROGRAM, dsp, lines, tmp_path)
    assert len(got) == len(lines) > 15_000
    assert all(fast == general for fast, general in got), next(
        (line, g) for line, g in zip(lines, got) if g[0] != g[1])


def test_the_interpreters_add_is_the_cs(tmp_path):
    """reference/c_arith.add_s8_run (a fused chain's residual ADD in the interpreter) gives the bits of
    vmcu_add_s8_run, in both of its forms."""
    from vmcu_reference import c_arith
    lines = add_cases()
    got = _run_c(ADD_PROGRAM, ["-DVMCU_EMULATE_DSP"], lines, tmp_path)
    names = ("input1_offset", "input2_offset", "input1_multiplier", "input1_shift", "input2_multiplier", "input2_shift",
             "output_multiplier", "output_shift", "output_offset", "act_min", "act_max", "left_shift")
    for line, (c_run, _) in zip(lines, got):
        values = [int(v) for v in line.split()]
        assert int(c_arith.add_s8_run(dict(zip(names, values[2:])), values[0], values[1])) == c_run, line


def add_cases() -> list[str]:
    """Input lines of ADD_PROGRAM: operands and an ADD prepared as TFLite does, over random scales."""
    from vmcu_tflite.quant import quantize_multiplier_smaller_than_one_exp
    rng = np.random.default_rng(5)
    lines = []
    for _ in range(20_000):
        s1, s2, so = (float(10 ** rng.uniform(-4, 0)) for _ in range(3))
        left = int(rng.choice([20, 20, 20, 21, 22]))  # 22: the general form's path
        twice = 2 * max(s1, s2)
        real_out = twice / ((1 << left) * so)
        if not 0 < real_out < 1:
            continue
        m1, sh1 = quantize_multiplier_smaller_than_one_exp(s1 / twice)
        m2, sh2 = quantize_multiplier_smaller_than_one_exp(s2 / twice)
        mo, sho = quantize_multiplier_smaller_than_one_exp(real_out)
        a, b, z1, z2, zo = (int(v) for v in rng.integers(-128, 128, 5))
        lo, hi = sorted(int(v) for v in rng.integers(-128, 128, 2)) if rng.random() < 0.3 else (-128, 127)
        lines.append(f"{a} {b} {-z1} {-z2} {m1} {sh1} {m2} {sh2} {mo} {sho} {zo} {lo} {hi} {left}\n")
    return lines
