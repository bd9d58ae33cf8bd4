"""Where a model's instructions go: an instruction-level profile of one inference on a QEMU board.

Usage: python benchmarks/profile.py MODEL [--target qemu-cortex-m4] [--no-fuse] [--lines 40] [--json FILE]

`vmcu-validate --profile` counts instructions per step; this goes below the step. The model is
converted with the target's kernel tuning, built (with debug information) and checked bit-exact as
`vmcu-validate` does, then run once more under QEMU logging every translated block and every block
executed (`-d in_asm,exec,nochain`, `-icount shift=0` as the measurement): the instructions of
each block times its executions, between the harness's vmcu_board_measure_begin() and
vmcu_board_measure_end() only, give the instructions executed at each address, summed by function
and by source line (addr2line). Helpers the compiler inlined count where their source lines are
(arm_acle.h's __smlad, arm_mve.h's __arm_vmladavaq_s8, vmcu_dsp_*.h), which is what tells a kernel's
multiply-accumulates from its addressing and requantization. The total counted comes within a few
dozen instructions of the run's measured ones (the measurement calls' own).
"""
from __future__ import annotations

import argparse
import bisect
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence, TextIO

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vmcu_tflite.pipeline import compile_model  # noqa: E402
from vmcu_tflite.validate.run import validate_program  # noqa: E402
from vmcu_tflite.validate.targets import TARGETS, QemuTarget  # noqa: E402

_TRACE = re.compile(r"^Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/")
_INSN = re.compile(r"^0x([0-9a-f]+):\s+((?:(?:[0-9a-f]{4}){1,2} )+)")  # the address, then the encoding
_OBJDUMP = re.compile(r"^ *([0-9a-f]+):\t[0-9a-f ]+\t(?!\.word|\.short|\.byte)([^\s]+)", re.M)
_STOPPED = re.compile(r"^Stopped execution of TB chain before \S+ \[([0-9a-f]+)\]")


@dataclass(frozen=True)
class Span:
    """A function's addresses [start, end) (the Thumb bit cleared)."""

    start: int
    end: int

    def __contains__(self, address: int) -> bool:
        return self.start <= address < self.end


def executed(log: TextIO, begin: Span, end: Span, instructions: Sequence[int]) -> tuple[collections.Counter, int]:
    """Instructions executed per address in a QEMU `-d in_asm,exec,nochain` log, counting only the
    blocks run after the last block of `begin` (the functions it calls, such as the stack paint,
    are not measured) up to the next block of `end`, and how many such regions there were.

    A block runs the program's `instructions` (their addresses, in order, from objdump) in the span
    its latest translation listed (`IN:` then a `0x<address>:  <halfwords>` line per instruction):
    QEMU's own disassembler splits the Armv8.1-M instructions it does not know (DLS, LE, the MVE
    ones) into two halfword lines, so its lines give the span, not the count. QEMU translates a
    block again, shorter, where -icount must stop at an I/O access; the runs before that keep the
    span of theirs. A block logged and then "stopped before" did not run."""
    translations: list[Span] = []  # every translation's addresses, in order
    current: dict[int, int] = {}  # a block's address -> its latest translation
    runs: collections.Counter = collections.Counter()  # translation -> measured runs
    region: collections.Counter | None = None  # the translations run since `begin`'s last block
    translating = False
    regions = 0
    for line in log:
        stopped = _STOPPED.match(line)
        if stopped:  # the block logged last did not run: -icount's budget ran out at its start
            pc = int(stopped.group(1), 16)
            if region is not None and pc in current and region[current[pc]] > 0:
                region[current[pc]] -= 1
            continue
        trace = _TRACE.match(line)
        if trace:
            translating = False
            pc = int(trace.group(1), 16)
            if pc in begin:
                region = collections.Counter()
            elif pc in end and region is not None:
                runs.update(region)
                region, regions = None, regions + 1
            elif region is not None and pc in current:
                region[current[pc]] += 1
        elif line.startswith("IN:"):
            translating = True
            first = None
        elif translating:
            insn = _INSN.match(line)
            if insn:
                address, size = int(insn.group(1), 16), len(insn.group(2).replace(' ', '')) // 2
                if first is None:
                    first = address
                    current[address] = len(translations)
                    translations.append(Span(address, address + size))
                else:
                    translations[-1] = Span(first, address + size)
            elif not line.strip():
                translating = False
    counts: collections.Counter = collections.Counter()
    for translation, n in runs.items():
        span = translations[translation]
        for address in instructions[bisect.bisect_left(instructions, span.start):
                                    bisect.bisect_left(instructions, span.end)]:
            counts[address] += n
    return counts, regions


def instructions_of(executable: Path, tools: str) -> dict[int, str]:
    """The mnemonic of every instruction of `executable`'s code by address (objdump -d; Arm code read
    as Armv8.1-M, a superset of the other cores', whose MVE instructions objdump otherwise names as
    coprocessor ones)."""
    machine = ["-m", "armv8.1-m.main"] if tools.startswith("arm-") else []
    out = subprocess.run([f"{tools}objdump", "-d", *machine, str(executable)], capture_output=True, text=True,
                         check=True).stdout
    return {int(m.group(1), 16): m.group(2) for m in _OBJDUMP.finditer(out)}


def symbol_span(executable: Path, tools: str, name: str) -> Span:
    """The addresses of function `name` in `executable` (nm's value and size)."""
    out = subprocess.run([f"{tools}nm", "-S", str(executable)], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[3] == name:
            start = int(parts[0], 16) & ~1
            return Span(start, start + int(parts[1], 16))
    raise SystemExit(f"{executable.name} has no function {name}")


def by_place(counts: collections.Counter, executable: Path,
             tools: str) -> tuple[collections.Counter, collections.Counter]:
    """The counts summed by function and by (function, file:line), from addr2line."""
    addresses = sorted(counts)
    out = subprocess.run([f"{tools}addr2line", "-f", "-e", str(executable)], input="\n".join(map(hex, addresses)),
                         capture_output=True, text=True, check=True).stdout.splitlines()
    functions, lines = collections.Counter(), collections.Counter()
    for k, address in enumerate(addresses):
        function, place = out[2 * k], out[2 * k + 1].rsplit("/", 1)[-1]
        functions[function] += counts[address]
        lines[(function, place)] += counts[address]
    return functions, lines


def profile(model: Path, target: QemuTarget, fuse: bool, work: Path) -> dict:
    """Build, check and run `model` on `target` under QEMU's block log; the counts by place."""
    os.environ["CFLAGS"] = f"{os.environ.get('CFLAGS', '')} -g".strip()  # line numbers; the same code
    program = compile_model(model, fuse=fuse, tuning=target.tuning, widened=target.widened_weights)
    result = validate_program(program, model.read_bytes(), target, work=work)
    if not (result.status == 0 and result.matches_reference and result.matches_tflm is not False):
        raise SystemExit(f"{model.name} on {target.name}: outputs differ from the interpreter's or TFLite Micro's")
    executable = work / "build" / "vmcu_validate"  # where the target builds it
    log = work / "qemu.log"
    subprocess.run(target.command(executable, "-d", "in_asm,exec,nochain", "-D", str(log)),
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, timeout=target.timeout * 20)
    mnemonics = instructions_of(executable, target.tools)
    with open(log, errors="replace") as f:
        counts, regions = executed(f, symbol_span(executable, target.tools, "vmcu_board_measure_begin"),
                                   symbol_span(executable, target.tools, "vmcu_board_measure_end"),
                                   sorted(mnemonics))
    log.unlink()
    functions, lines = by_place(counts, executable, target.tools)
    kinds = collections.Counter()
    for address, n in counts.items():
        kinds[mnemonics[address]] += n
    return {"model": model.stem, "target": target.name, "fuse": fuse, "regions": regions,
            "measured": result.measurements["instructions"], "counted": sum(counts.values()),
            "functions": functions.most_common(), "mnemonics": kinds.most_common(),
            "lines": [(f, p, n) for (f, p), n in lines.most_common()]}


def report(found: dict, lines: int) -> Iterable[str]:
    total = found["counted"] or 1
    yield (f"{found['model']} on {found['target']}{'' if found['fuse'] else ' (no fusion)'}: "
           f"{found['counted']:,} instructions counted in {found['regions']} measured region(s), "
           f"the run measured {found['measured']:,}")
    yield "\nby function:"
    for name, n in found["functions"][:lines]:
        yield f"{n:>13,} {100 * n / total:5.1f}%  {name}"
    yield "\nby instruction:"
    for name, n in found["mnemonics"][:lines]:
        yield f"{n:>13,} {100 * n / total:5.1f}%  {name}"
    yield "\nby source line:"
    for name, place, n in found["lines"][:lines]:
        yield f"{n:>13,} {100 * n / total:5.1f}%  {place:32s} {name}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("--target", default="qemu-cortex-m4", choices=[n for n, t in TARGETS.items()
                                                                       if isinstance(t, QemuTarget)])
    parser.add_argument("--no-fuse", action="store_true")
    parser.add_argument("--lines", type=int, default=40, help="rows of each table")
    parser.add_argument("--json", type=Path, help="write every count there too")
    args = parser.parse_args()
    if not args.model.is_file():
        parser.error(f"{args.model}: no such file")
    with tempfile.TemporaryDirectory(prefix="vmcu-profile-") as scratch:
        found = profile(args.model, TARGETS[args.target], not args.no_fuse, Path(scratch))
    print("\n".join(report(found, args.lines)))
    if args.json:
        args.json.write_text(json.dumps(found, indent=1))


if __name__ == "__main__":
    main()
