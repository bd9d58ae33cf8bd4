"""Runs of mutants in a fuzzing program: restarted after each one that ends it, every outcome judged."""
from __future__ import annotations

import os
import random
import signal
import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .program import FuzzTarget
    from .sites import Site

SANITIZER_ENV = {"ASAN_OPTIONS": "detect_leaks=0:halt_on_error=1:abort_on_error=0",
                 "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1"}
STATUSES = {0: "OK", 1: "POOL_TOO_SMALL", 2: "BAD_MODEL", 3: "UNSUPPORTED", 4: "BAD_ARGUMENT",
            5: "SCRATCH_TOO_SMALL", 6: "STATE_TOO_SMALL", 7: "STREAM", 8: "ARITHMETIC"}  # vmcu_status
HANG_SECONDS = 10  # one mutant's verify + run + reset (a real model takes milliseconds)


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
