"""kissfft's 16-bit fixed-point real FFT (FIXED_POINT 16: kiss_fftr over kiss_fft), in Python ints.

Written from kissfft's arithmetic, independently of the C kernel: Q15 twiddles floor(0.5 + 32767 *
cos/sin(phase)); C_FIXDIV divides a butterfly's inputs by its radix first (x * (32767 / radix),
rounded: + 2^14, >> 15); C_MUL rounds each int32 sum of products the same way; C_ADD and C_SUB wrap
to int16; HALF_OF halves an int sum before it is stored as int16. Radix 2, 3, 4 and 5 stages (kissfft's
generic butterfly, for larger primes, is not written here).
"""
from __future__ import annotations

import math


def s16(v: int) -> int:
    return (v + 0x8000) % 0x10000 - 0x8000


def s32(v: int) -> int:
    return (v + 0x80000000) % 0x100000000 - 0x80000000


def sround(x: int) -> int:
    return s16(s32(s32(x) + (1 << 14)) >> 15)


def cmul(a, b):
    return (sround(s32(a[0] * b[0]) - s32(a[1] * b[1])), sround(s32(a[0] * b[1]) + s32(a[1] * b[0])))


def cadd(a, b):
    return s16(a[0] + b[0]), s16(a[1] + b[1])


def csub(a, b):
    return s16(a[0] - b[0]), s16(a[1] - b[1])


def fixdiv(c, k: int):
    return sround(c[0] * (32767 // k)), sround(c[1] * (32767 // k))


def twiddle(phase: float):
    return s16(math.floor(0.5 + 32767 * math.cos(phase))), s16(math.floor(0.5 + 32767 * math.sin(phase)))


def kf_factor(n: int) -> list[int]:
    out, p, floor_sqrt = [], 4, math.floor(math.sqrt(n))
    while True:
        while n % p:
            p = 2 if p == 4 else 3 if p == 2 else p + 2
            if p > floor_sqrt:
                p = n
        n //= p
        out += [p, n]
        if n <= 1:
            return out


class Fft:
    """A forward kiss_fft of `n` complex points."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.tw = [twiddle(-2 * math.pi * i / n) for i in range(n)]
        self.factors = kf_factor(n)
        if any(p not in (2, 3, 4, 5) for p in self.factors[::2]):
            raise ValueError(f"{n} points need radix {self.factors[::2]}: only 2, 3, 4 and 5 are written here")

    def __call__(self, x: list) -> list:
        out = [(0, 0)] * self.n
        self._work(out, 0, x, 0, 1, 0)
        return out

    def _work(self, out, at, f, f_at, fstride, k):
        p, m = self.factors[k], self.factors[k + 1]
        if m == 1:
            for q in range(p):
                out[at + q] = f[f_at + q * fstride]
        else:
            for q in range(p):
                self._work(out, at + q * m, f, f_at + q * fstride, fstride * p, k + 2)
        {2: self._bfly2, 3: self._bfly3, 4: self._bfly4, 5: self._bfly5}[p](out, at, fstride, m)

    def _bfly2(self, F, at, fstride, m):
        for j in range(m):
            a, b = at + j, at + j + m
            F[a], F[b] = fixdiv(F[a], 2), fixdiv(F[b], 2)
            t = cmul(F[b], self.tw[j * fstride])
            F[b] = csub(F[a], t)
            F[a] = cadd(F[a], t)

    def _bfly3(self, F, at, fstride, m):
        epi3 = self.tw[fstride * m]
        for j in range(m):
            i0, i1, i2 = at + j, at + j + m, at + j + 2 * m
            for i in (i0, i1, i2):
                F[i] = fixdiv(F[i], 3)
            s1 = cmul(F[i1], self.tw[j * fstride])
            s2 = cmul(F[i2], self.tw[2 * j * fstride])
            s3, s0 = cadd(s1, s2), csub(s1, s2)
            F[i1] = s16(F[i0][0] - (s3[0] >> 1)), s16(F[i0][1] - (s3[1] >> 1))
            s0 = sround(s0[0] * epi3[1]), sround(s0[1] * epi3[1])  # C_MULBYSCALAR
            F[i0] = cadd(F[i0], s3)
            F[i2] = s16(F[i1][0] + s0[1]), s16(F[i1][1] - s0[0])
            F[i1] = s16(F[i1][0] - s0[1]), s16(F[i1][1] + s0[0])

    def _bfly5(self, F, at, fstride, m):
        ya, yb = self.tw[fstride * m], self.tw[2 * fstride * m]

        def smul(a, b):  # S_MUL
            return sround(a * b)

        for u in range(m):
            idx = [at + u + k * m for k in range(5)]
            for i in idx:
                F[i] = fixdiv(F[i], 5)
            s0 = F[idx[0]]
            s1, s2, s3, s4 = (cmul(F[idx[k]], self.tw[k * u * fstride]) for k in range(1, 5))
            s7, s10, s8, s9 = cadd(s1, s4), csub(s1, s4), cadd(s2, s3), csub(s2, s3)
            F[idx[0]] = s16(s0[0] + s7[0] + s8[0]), s16(s0[1] + s7[1] + s8[1])
            s5 = (s16(s0[0] + smul(s7[0], ya[0]) + smul(s8[0], yb[0])),
                  s16(s0[1] + smul(s7[1], ya[0]) + smul(s8[1], yb[0])))
            s6 = (s16(smul(s10[1], ya[1]) + smul(s9[1], yb[1])), s16(-smul(s10[0], ya[1]) - smul(s9[0], yb[1])))
            F[idx[1]], F[idx[4]] = csub(s5, s6), cadd(s5, s6)
            s11 = (s16(s0[0] + smul(s7[0], yb[0]) + smul(s8[0], ya[0])),
                   s16(s0[1] + smul(s7[1], yb[0]) + smul(s8[1], ya[0])))
            s12 = (s16(-smul(s10[1], yb[1]) + smul(s9[1], ya[1])), s16(smul(s10[0], yb[1]) - smul(s9[0], ya[1])))
            F[idx[2]], F[idx[3]] = cadd(s11, s12), csub(s11, s12)

    def _bfly4(self, F, at, fstride, m):
        for j in range(m):
            i0, i1, i2, i3 = at + j, at + j + m, at + j + 2 * m, at + j + 3 * m
            for i in (i0, i1, i2, i3):
                F[i] = fixdiv(F[i], 4)
            s0 = cmul(F[i1], self.tw[j * fstride])
            s1 = cmul(F[i2], self.tw[2 * j * fstride])
            s2 = cmul(F[i3], self.tw[3 * j * fstride])
            s5 = csub(F[i0], s1)
            F[i0] = cadd(F[i0], s1)
            s3, s4 = cadd(s0, s2), csub(s0, s2)
            F[i2] = csub(F[i0], s3)
            F[i0] = cadd(F[i0], s3)
            F[i1] = s16(s5[0] + s4[1]), s16(s5[1] - s4[0])
            F[i3] = s16(s5[0] - s4[1]), s16(s5[1] + s4[0])


class Rfft:
    """kiss_fftr forward: `length` real samples (even) to length / 2 + 1 complex bins."""

    def __init__(self, length: int) -> None:
        self.half = length // 2
        self.fft = Fft(self.half)
        self.super_tw = [twiddle(-math.pi * ((i + 1) / self.half + 0.5)) for i in range(self.half // 2)]

    def __call__(self, samples: list[int]) -> list[tuple[int, int]]:
        n = self.half
        tmp = self.fft([(samples[2 * i], samples[2 * i + 1]) for i in range(n)])
        out = [(0, 0)] * (n + 1)
        dc = fixdiv(tmp[0], 2)
        out[0] = (s16(dc[0] + dc[1]), 0)
        out[n] = (s16(dc[0] - dc[1]), 0)
        for k in range(1, n // 2 + 1):
            fpk = fixdiv(tmp[k], 2)
            fpnk = fixdiv((tmp[n - k][0], s16(-tmp[n - k][1])), 2)
            f1k, f2k = cadd(fpk, fpnk), csub(fpk, fpnk)
            tw = cmul(f2k, self.super_tw[k - 1])
            out[k] = s16((f1k[0] + tw[0]) >> 1), s16((f1k[1] + tw[1]) >> 1)
            out[n - k] = s16((f1k[0] - tw[0]) >> 1), s16((tw[1] - f1k[1]) >> 1)
        return out
