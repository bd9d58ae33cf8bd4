"""Run mutated models through the converter, the reference interpreter and TFLite Micro.

Usage: python -m tests.fuzz.run [--seed S] [--first I] [--cases N] [--seconds T] [--models DIR...]

Case i (from I, default 0) mutates model i mod (number of models) with seed S * 1000003 + i, so
that a long run splits into chunks (`--first 0 --cases 2500`, `--first 2500 --cases 2500`, ...)
that together are the same cases.

Each case (the kernels shaped for each tuning in turn, `dsp` and `helium`) must end one of two
ways: refused with a one-line `VmcuError` (exit 2 in the tools) within `CASE_SECONDS` of CPU time
(the process's own: on a machine shared with other work a slow case is no hang) and
`WALL_SECONDS` of real time, or
accepted and then run without a hazard by the reference interpreter and bit-exact with TFLite
Micro, which must accept the model too (the oracle runs it in a worker process, so that a crash
inside it is a finding, not the end of the run); a run the interpreter stops on its inputs
(`ArithmeticInputError`: an empty decoded box, a DIV by zero) must fail in TFLite Micro too.
Anything else is a finding:

  traceback   an exception other than VmcuError escaped
  hang        no answer within CASE_SECONDS of CPU time (or WALL_SECONDS of real time)
  memory      the process grew by more than MEMORY_BYTES
  escaped     a refusal that is not one printable line
  hazard      accepted, then the reference interpreter found a hazard
  tflm        accepted, but TFLite Micro refuses the model or crashes on it
  different   accepted, then outputs differ from TFLite Micro (or it ran where we stopped)

Prints one JSON line per finding and a summary line; exits 1 when there are findings.
"""
from __future__ import annotations

import argparse
import json
import resource
import signal
import sys
import time
import traceback
from pathlib import Path

from reference.compare import first_divergence
from reference.inputs import random_inputs
from reference.interpreter import Interpreter
from tests.fuzz.mutants import mutate
from vmcu_tflite.errors import ArithmeticInputError, HazardError, VmcuError
from vmcu_tflite.kernels.tuning import TUNINGS
from vmcu_tflite.oracle import OracleError, run_tflm
from vmcu_tflite.pipeline import compile_model

ROOT = Path(__file__).resolve().parents[2]
CASE_SECONDS = 30  # of CPU time: the slowest fixture (lstm_16x8) takes 2 to 5 s, more on a loaded machine
WALL_SECONDS = 600  # a backstop for a case that waits rather than computes (lstm_16x8 took 63 s on a shared machine)
MEMORY_BYTES = 1 << 30


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def _compare(data: bytes, program, inputs, result) -> tuple[str, str] | None:
    """None when TFLite Micro (run isolated by the oracle) agrees bit for bit."""
    try:
        divergence = first_divergence(data, program, inputs, result)
    except OracleError as err:
        return "tflm", str(err)
    return None if divergence is None else ("different", str(divergence))


def _refused_alike(data: bytes, program, inputs, reason: str) -> tuple[str, str] | None:
    """None when the oracle fails on the inputs the interpreter stopped on (`reason`) too."""
    try:
        run_tflm(data, inputs, len(program.graph.outputs))
    except OracleError:
        return None
    return "different", f"stopped ({reason[:200]}) where TFLite Micro ran"


def check(data: bytes, tuning: str = "dsp") -> tuple[str, str] | None:
    """None when the model is refused cleanly or accepted (its kernels shaped for `tuning`) and
    bit-exact; else (kind, detail)."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.signal(signal.SIGPROF, _alarm)
    signal.setitimer(signal.ITIMER_PROF, CASE_SECONDS)
    signal.alarm(WALL_SECONDS)
    try:
        try:
            program = compile_model(data, tuning=tuning)
        except VmcuError as err:
            message = str(err)
            if "\n" in message or not message.isprintable():
                return "escaped", repr(message[:300])
            return None
        inputs = random_inputs(program.graph, 0)
        try:
            result = Interpreter(program).run(inputs, record=True)
        except HazardError as err:
            return "hazard", str(err)[:300]
        except ArithmeticInputError as err:  # stopped on these inputs: so must TFLite Micro be
            return _refused_alike(data, program, inputs, str(err))
    except _Timeout:
        return "hang", f"no answer within {CASE_SECONDS} s of CPU time or {WALL_SECONDS} s"
    except MemoryError:
        return "memory", "MemoryError"
    except Exception as err:
        frames = traceback.extract_tb(err.__traceback__)
        where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"
        return "traceback", f"{type(err).__name__} at {where}: {str(err).splitlines()[0][:200] if str(err) else ''}"
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.alarm(0)
    return _compare(data, program, inputs, result)


def fixtures(paths: list[Path]) -> list[tuple[str, bytes]]:
    """The models to mutate: each path a .tflite file or a folder of them."""
    files = [f for p in paths for f in ([p] if p.is_file() else sorted(p.glob("*.tflite")))]
    return [(f.name, f.read_bytes()) for f in files]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--first", type=int, default=0, help="index of the first case")
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=float("inf"), help="stop starting cases after this long")
    parser.add_argument("--models", type=Path, nargs="*", default=[ROOT / "models"], help="files or folders")
    args = parser.parse_args(argv)
    if args.first < 0:
        parser.error("--first must be at least 0")
    models = fixtures(args.models)
    if not models:
        parser.error("no .tflite models in " + ", ".join(map(str, args.models)))
    started, baseline = time.monotonic(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    findings, done = 0, 0
    for i in range(args.first, args.first + args.cases):
        if time.monotonic() - started > args.seconds:
            break
        name, data = models[i % len(models)]
        mutant = mutate(data, args.seed * 1_000_003 + i, name)
        tuning = TUNINGS[i // len(models) % len(TUNINGS)]  # each model's rounds alternate the tunings
        finding = check(mutant.data, tuning)
        grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - baseline
        if finding is None and grown > MEMORY_BYTES:
            finding = ("memory", f"the process grew by {grown >> 20} MiB")
            baseline += grown
        done += 1
        if finding is not None:
            findings += 1
            print(json.dumps({"seed": mutant.seed, "model": name, "tuning": tuning, "how": mutant.how,
                              "kind": finding[0], "detail": finding[1]}), flush=True)
    print(json.dumps({"cases": done, "findings": findings, "seconds": round(time.monotonic() - started, 1)}))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
