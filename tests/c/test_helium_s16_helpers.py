"""Helium's 16x8 helpers of vmcu_dsp.h on the Cortex-M55 (QEMU), against Python models of TFLite's arithmetic.

- vmcu_requantize64_lanes_mve (VRMULH on four lanes) must give vmcu_requantize64's bits wherever the
  converter lets a layer use it (requant.wide_lanes: int32 accumulators, shifts in [-17, -1]). The
  program sweeps, for every such shift and a set of multipliers (the rounding edges of m16 among them:
  0x7FFF8000 and above round to 0x7FFF), every accumulator in [-2^14, 2^14] and accumulators near the
  int32 ends and near each rounding tie, comparing the vector form with the scalar helper on the
  device (it prints the number of mismatches); random cases print their values for the Python model of
  TFLite's int64 MultiplyByQuantizedMultiplier (`requantize64`), the act range clamp and offset too.
- vmcu_dot_s16_s16_64's MVE path (VMLALDAVA.S16, the tail under VCTP.16) gives the exact int64 sums
  for lengths 1 to 300 with one or two inputs and rows.
- the tiles' helpers the generated kernels call (vmcu_requantize64_2x2_mve, _2x1_mve, _row4_mve) store the
  scalar form's values where they should and nothing else.
- vmcu_zero16_mve (a 16x8 window's zeroing) writes exactly its n halfwords.
- `wide_lanes` itself: the bound and the shift range decide it.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from vmcu_tflite.kernels.requant import requant_form16, wide_lanes
from vmcu_tflite.validate.targets import QEMU_TOOLS, TARGETS

ROOT = Path(__file__).resolve().parents[2]
needs_qemu = pytest.mark.skipif(not all(shutil.which(t) for t in ("cmake", *QEMU_TOOLS)),
                                reason="arm-none-eabi-gcc, qemu-system-arm or cmake missing")
M55 = TARGETS["qemu-cortex-m55"]

MULTIPLIERS = (0x40000000, 0x40008000, 0x4000FFFF, 0x5A827999, 0x7FFF7FFF, 0x7FFF8000, 0x7FFFFFFF, 0x7FFEC000,
               0, 1, 0x8000, 0x7FFF, -0x40000000, -0x7FFF8001, -0x80000000)


def requantize64(x: int, multiplier: int, shift: int) -> int:
    """TFLite's MultiplyByQuantizedMultiplier for an int64 accumulator, written from its definition:
    the Q31 multiplier rounded to Q15 (saturating at 0x7FFF), the product shifted right by 15 - shift
    with round-half-up, the int32 result."""
    m16 = min((multiplier + (1 << 15)) >> 16, 0x7FFF)
    total = 15 - shift
    result = (x * m16 + (1 << (total - 1))) >> total
    return ((result + (1 << 31)) % (1 << 32)) - (1 << 31)


def _c_array(ctype: str, name: str, values) -> str:
    text = ", ".join(str(int(v)) if v != -(1 << 31) else "INT32_MIN" for v in values)
    return f"static const {ctype} {name}[{len(values)}] = {{{text}}};\n"


def _program(cases: dict[str, np.ndarray], dots: list[tuple[int, int, int]], dot_x: np.ndarray,
             dot_w: np.ndarray) -> str:
    n = len(cases["x"])
    arrays = (_c_array("int32_t", "xs", cases["x"]) + _c_array("int32_t", "ms", cases["m"])
              + _c_array("int8_t", "ss", cases["s"]) + _c_array("int32_t", "offs", cases["offset"])
              + _c_array("int32_t", "lows", cases["lo"]) + _c_array("int32_t", "highs", cases["hi"])
              + _c_array("int32_t", "shape", [v for d in dots for v in d])
              + _c_array("int16_t", "dx", dot_x) + _c_array("int16_t", "dw", dot_w)
              + _c_array("int32_t", "multipliers", MULTIPLIERS))
    return r"""#include <stdio.h>
#include "vmcu/vmcu_dsp.h"
""" + arrays + rf"""

#if !VMCU_MVE
#error "built for a core without Helium"
#endif

static int32_t lane0(int32_t x, int32_t m, int32_t s, int32_t offset, int32_t lo, int32_t hi)
{{
    return vgetq_lane_s32(vmcu_requantize64_lanes_mve(vdupq_n_s32(x), vdupq_n_s32(m), vdupq_n_s32(s), offset, lo, hi),
                          0);
}}

static int32_t scalar(int32_t x, int32_t m, int32_t s, int32_t offset, int32_t lo, int32_t hi)
{{
    return vmcu_clamp(vmcu_requantize64(x, m, s) + offset, lo, hi);
}}

int main(void)
{{
    long mismatches = 0, checked = 0;
    int32_t i, k;
    for (int32_t s = -17; s <= -1; ++s) {{
        for (k = 0; k < (int32_t)(sizeof multipliers / sizeof multipliers[0]); ++k) {{
            const int32_t m = multipliers[k], t = 15 - s;
            int32_t x;
            for (x = -(1 << 14); x <= (1 << 14); ++x) {{
                mismatches += lane0(x, m, s, 0, INT32_MIN, INT32_MAX) != scalar(x, m, s, 0, INT32_MIN, INT32_MAX);
                ++checked;
            }}
            for (i = 0; i < 64; ++i) {{ /* the int32 ends */
                const int32_t ends[2] = {{INT32_MIN + i, INT32_MAX - i}};
                for (int32_t e = 0; e < 2; ++e) {{
                    mismatches += lane0(ends[e], m, s, 0, INT32_MIN, INT32_MAX) !=
                                  scalar(ends[e], m, s, 0, INT32_MIN, INT32_MAX);
                    ++checked;
                }}
            }}
            if (m != 0) {{ /* around the ties: x m16 = (2j + 1) 2^(t-1), for x in int32 */
                const int64_t m16 = m >= 0x7FFF8000 ? 0x7FFF : (m + 0x8000) >> 16;
                for (i = -300; i <= 300 && m16 != 0; ++i) {{
                    const int64_t tie = ((int64_t)(2 * i + 1) << (t - 1)) / m16;
                    for (int64_t d = -2; d <= 2; ++d) {{
                        const int64_t x = tie + d;
                        if (x >= INT32_MIN && x <= INT32_MAX) {{
                            mismatches += lane0((int32_t)x, m, s, 0, INT32_MIN, INT32_MAX) !=
                                          scalar((int32_t)x, m, s, 0, INT32_MIN, INT32_MAX);
                            ++checked;
                        }}
                    }}
                }}
            }}
        }}
    }}
    printf("sweep %ld %ld\n", mismatches, checked);
    for (i = 0; i + 4 <= {n}; i += 4) {{ /* four lanes of their own constants */
        int32_t out[4];
        const int32x4_t v = vmcu_requantize64_lanes_mve(vld1q_s32(xs + i), vld1q_s32(ms + i), vldrbq_s32(ss + i),
                                                        offs[i], lows[i], highs[i]);
        vst1q_s32(out, v);
        for (k = 0; k < 4; ++k) {{
            printf("lane %ld %ld\n", (long)(i + k), (long)out[k]);
        }}
    }}
    for (i = 0; i < (int32_t)(sizeof shape / sizeof shape[0]); i += 3) {{
        const int32_t len = shape[i], x1 = shape[i + 1] & 1, w1 = shape[i + 1] & 2, at = shape[i + 2];
        int64_t acc[4] = {{-7, 11, 1LL << 40, -(1LL << 40)}};
        vmcu_dot_s16_s16_64(dx + at, x1 ? dx + at + 300 : 0, dw + at, w1 ? dw + at + 300 : 0, len, acc);
        printf("dot %ld", (long)(i / 3)); /* each sum as its high and low words (newlib-nano prints no %lld) */
        for (k = 0; k < 4; ++k) {{
            printf(" %ld %lu", (long)(acc[k] >> 32), (unsigned long)(uint32_t)acc[k]);
        }}
        printf("\n");
    }}
    {{ /* the tiles' helpers: 2x2 (a channel pair), 2x1 (one channel), row4 (1 to 4 channels), each value
        * against the scalar form, nothing else in dst written */
        long wrong = 0;
        for (i = 0; i + 4 <= {n}; i += 4) {{
            const int64_t acc[4] = {{xs[i], xs[i + 1], xs[i + 2], xs[i + 3]}};
            int16_t dst[12];
            const int32_t o = offs[i], lo = lows[i], hi = highs[i];
            for (k = 0; k < 12; ++k) {{
                dst[k] = 0x5555;
            }}
            vmcu_requantize64_2x2_mve(acc, ms + i, ss + i, o, lo, hi, dst, 5);
            for (k = 0; k < 12; ++k) {{
                const int32_t t = k / 5, c = k % 5;
                const int32_t want = c < 2 && t < 2 ? scalar(xs[i + 2 * t + c], ms[i + c], ss[i + c], o, lo, hi)
                                                    : 0x5555;
                wrong += dst[k] != want;
                dst[k] = 0x5555;
            }}
            vmcu_requantize64_2x1_mve(acc, ms + i, ss + i, o, lo, hi, dst, 3);
            for (k = 0; k < 12; ++k) {{
                const int32_t want = k == 0 || k == 3 ? scalar(xs[i + (k == 3 ? 2 : 0)], ms[i], ss[i], o, lo, hi)
                                                      : 0x5555;
                wrong += dst[k] != want;
                dst[k] = 0x5555;
            }}
            const int32_t count = 1 + (i / 4) % 4;
            vmcu_requantize64_row4_mve(acc, ms + i, ss + i, o, lo, hi, dst + 1, count);
            for (k = 0; k < 12; ++k) {{
                const int32_t want = k >= 1 && k <= count
                                         ? scalar(xs[i + k - 1], ms[i + k - 1], ss[i + k - 1], o, lo, hi) : 0x5555;
                wrong += dst[k] != want;
            }}
        }}
        printf("tiles %ld\n", wrong);
    }}
    {{ /* vmcu_zero16_mve: every length to 40 at an odd halfword, nothing around it written */
        long wrong = 0;
        for (int32_t n = 0; n <= 40; ++n) {{
            int16_t buffer[48];
            for (k = 0; k < 48; ++k) {{
                buffer[k] = 0x5555;
            }}
            vmcu_zero16_mve(buffer + 3, n);
            for (k = 0; k < 48; ++k) {{
                wrong += buffer[k] != (k >= 3 && k < 3 + n ? 0 : 0x5555);
            }}
        }}
        printf("zero %ld\n", wrong);
    }}
    printf("status 0\n");
    return 0;
}}
"""


def _build_and_run(source: str, work: Path) -> str:
    (work / "main.c").write_text(source)
    (work / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.13)\nproject(helium_s16 C)\n"
        f'include("{(ROOT / "csrc" / "targets" / "vmcu_board.cmake").as_posix()}")\n'
        "add_executable(helium_s16 main.c)\n"
        f'target_include_directories(helium_s16 PRIVATE "{(ROOT / "csrc" / "include").as_posix()}")\n'
        "set_target_properties(helium_s16 PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)\n"
        "target_compile_options(helium_s16 PRIVATE -O2 -Wall -Wextra -Werror)\n"
        f"vmcu_board_executable(helium_s16 {M55.board} STACK_BYTES 16384)\n")
    build = work / "build"
    for command in (["cmake", "-S", str(work), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                     f"-DCMAKE_TOOLCHAIN_FILE={ROOT / 'csrc/targets/arm-none-eabi.cmake'}",
                     "-DVMCU_CPU=cortex-m55", f"-DVMCU_BOARD={M55.board}"],
                    ["cmake", "--build", str(build)]):
        done = subprocess.run(command, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
    return M55.run(build / "helium_s16")


@needs_qemu
def test_helium_16x8_helpers_on_cortex_m55(tmp_path):
    rng = np.random.default_rng(41)
    n = 2000
    x = np.concatenate([rng.integers(-(1 << 31), 1 << 31, n // 2), rng.integers(-(1 << 20), 1 << 20, n // 2)])
    m = np.where(rng.random(n) < 0.2, rng.choice(np.array(MULTIPLIERS, np.int64), n),
                 rng.integers(1 << 30, 1 << 31, n))
    s = rng.integers(-17, 0, n)
    offset = rng.integers(-32768, 32768, n)
    lo = np.where(rng.random(n) < 0.5, -32768, rng.integers(-32768, 1, n))
    hi = np.where(rng.random(n) < 0.5, 32767, rng.integers(0, 32768, n))
    for at in range(0, n, 4):  # a vector's offset and clamp bounds are its first lane's
        offset[at:at + 4], lo[at:at + 4], hi[at:at + 4] = offset[at], lo[at], hi[at]
    cases = {"x": x, "m": m, "s": s, "offset": offset, "lo": lo, "hi": hi}
    dx = rng.integers(-32768, 32768, 900)
    dx[:20] = -32768  # the extreme products
    dw = rng.integers(-127, 128, 900)
    dw[:20] = -127
    dots = [(length, ways, int(rng.integers(0, 300))) for length in (*range(1, 41), 63, 64, 65, 144, 255, 256, 257,
                                                                     299, 300) for ways in (0, 1, 2, 3)]
    out = _build_and_run(_program(cases, dots, dx, dw), tmp_path)
    lines = [line.split() for line in out.splitlines()]
    assert ["status", "0"] in lines, out[-2000:]
    sweep = next(line for line in lines if line[0] == "sweep")
    assert int(sweep[1]) == 0 and int(sweep[2]) > 17 * len(MULTIPLIERS) * (1 << 15), sweep
    assert ["zero", "0"] in lines and ["tiles", "0"] in lines
    lanes = {int(line[1]): int(line[2]) for line in lines if line[0] == "lane"}
    assert len(lanes) == n
    for i in range(n):
        want = min(max(requantize64(int(x[i]), int(m[i]), int(s[i])) + int(offset[i]), int(lo[i])), int(hi[i]))
        assert lanes[i] == want, (i, int(x[i]), int(m[i]), int(s[i]))
    sums = {int(line[1]): [int(line[2 + 2 * k]) * (1 << 32) + int(line[3 + 2 * k]) for k in range(4)]
            for line in lines if line[0] == "dot"}
    assert len(sums) == len(dots)
    for k, (length, ways, at) in enumerate(dots):
        xs = [dx[at:at + length], dx[at + 300:at + 300 + length]]
        ws = [dw[at:at + length], dw[at + 300:at + 300 + length]]
        start = [-7, 11, 1 << 40, -(1 << 40)]
        for p in range(2):
            for r in range(2):
                used = (p == 0 or ways & 1) and (r == 0 or ways & 2)
                want = start[2 * p + r] + (int(np.dot(xs[p].astype(np.int64), ws[r].astype(np.int64))) if used else 0)
                assert sums[k][2 * p + r] == want, (length, ways, p, r)


def test_wide_lanes_takes_int32_accumulators_and_shifts_from_minus_17_to_minus_1():
    class Requant:
        def __init__(self, shift):
            self.shift = np.array(shift)
            self.multiplier = np.full(len(shift), 1 << 30)

    filter_ = np.full((2, 3, 3, 8), 127, np.int64)  # 72 taps of 127: 2^15 * 9144 = 299,630,592 per channel
    bias = np.array([0, 1000])
    assert wide_lanes(filter_, bias, Requant([-9, -1]), 0)
    assert wide_lanes(filter_, bias, Requant([-17, -3]), 0)
    assert not wide_lanes(filter_, bias, Requant([-9, 0]), 0)  # t = 15: b would need 2^17 m16
    assert not wide_lanes(filter_, bias, Requant([-18, -9]), 0)  # t = 33: past one VRMULH
    room = (1 << 31) - (1 << 15) * 9144
    assert wide_lanes(filter_, np.array([room - 1, 0]), Requant([-9, -9]), 0)
    assert not wide_lanes(filter_, np.array([0, room]), Requant([-9, -9]), 0)  # an accumulator may reach 2^31
    assert requant_form16(bias, True, filter_, Requant([-9, -9])).lanes32
    assert not requant_form16(bias, False, filter_, Requant([-9, -9])).lanes32  # an int32 bias: not the wide form
    assert not requant_form16(bias, True).lanes32
