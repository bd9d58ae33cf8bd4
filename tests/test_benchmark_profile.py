"""benchmarks/profile.py's reading of QEMU's block log: only the measured region counts, each block
by the program's instructions in the span its translation listed."""
from __future__ import annotations

import io

from benchmarks.profile import Span, executed

BEGIN, PAINT, KERNEL, END = 0x100, 0x200, 0x300, 0x400


def _log(*lines: str) -> io.StringIO:
    return io.StringIO("".join(f"{line}\n" for line in lines))


PROGRAM = [a for start in (BEGIN, PAINT, KERNEL, END) for a in range(start, start + 0x40, 2)]  # 16-bit instructions


def _translated(address: int, instructions: int) -> list[str]:
    lines = [f"0x{address + 2 * k:08x}:  bf00       nop" for k in range(instructions)]
    return ["----------------", "IN: f", *lines, ""]


def _run(address: int) -> str:
    return f"Trace 0: 0x7f0000000000 [00000000/{address:08x}/00000000/ff200000] f"


def test_only_the_blocks_after_begin_returns_and_before_end_count():
    log = _log(*_translated(BEGIN, 2), _run(BEGIN), *_translated(PAINT, 5), _run(PAINT), _run(PAINT),
               _run(BEGIN + 4),  # begin's last block, after the paint it called
               *_translated(KERNEL, 3), _run(KERNEL), _run(KERNEL), *_translated(END, 1), _run(END),
               _run(KERNEL))  # after the region: not measured
    counts, regions = executed(log, Span(BEGIN, BEGIN + 8), Span(END, END + 4), PROGRAM)
    assert regions == 1
    assert dict(counts) == {KERNEL: 2, KERNEL + 2: 2, KERNEL + 4: 2}


def test_regions_add_up_and_a_block_translated_again_counts_each_translation_for_its_own_runs():
    log = _log(_run(BEGIN), *_translated(KERNEL, 2), _run(KERNEL), _run(END),
               *_translated(KERNEL, 1), _run(BEGIN), _run(KERNEL), _run(KERNEL), _run(END))
    counts, regions = executed(log, Span(BEGIN, BEGIN + 8), Span(END, END + 4), PROGRAM)
    assert regions == 2
    assert dict(counts) == {KERNEL: 3, KERNEL + 2: 1}  # two instructions once, then one instruction twice


def test_an_unfinished_region_counts_nothing():
    log = _log(_run(BEGIN), *_translated(KERNEL, 2), _run(KERNEL))
    counts, regions = executed(log, Span(BEGIN, BEGIN + 8), Span(END, END + 4), PROGRAM)
    assert (regions, sum(counts.values())) == (0, 0)


def test_a_32_bit_instruction_qemu_splits_into_two_halfword_lines_counts_once():
    """QEMU's disassembler does not know DLS, LE or the MVE instructions: it lists their halfwords apart."""
    log = _log(_run(BEGIN), "IN: f", f"0x{KERNEL:08x}:  f04e       .byte    0x4e, 0xf0",
               f"0x{KERNEL + 2:08x}:  e001       b #0",
               f"0x{KERNEL + 4:08x}:  f854 3023  ldr.w    r3, [r4, r3, lsl #2]", "", _run(KERNEL), _run(END))
    program = [KERNEL, KERNEL + 4, KERNEL + 8]  # objdump's: a 32-bit DLS, a 32-bit LDR.W
    counts, _ = executed(log, Span(BEGIN, BEGIN + 8), Span(END, END + 4), program)
    assert dict(counts) == {KERNEL: 1, KERNEL + 4: 1}


def test_a_block_stopped_before_it_ran_does_not_count():
    log = _log(_run(BEGIN), *_translated(KERNEL, 2), _run(KERNEL), _run(KERNEL),
               "Stopped execution of TB chain before 0x7f0000000000 [00000300] f", _run(KERNEL), _run(END))
    counts, _ = executed(log, Span(BEGIN, BEGIN + 8), Span(END, END + 4), PROGRAM)
    assert dict(counts) == {KERNEL: 2, KERNEL + 2: 2}
