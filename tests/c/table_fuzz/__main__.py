"""python -m tests.c.table_fuzz --models models/*.tflite: every mutant of every model."""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from vmcu_tflite.errors import ModelError

from . import __doc__ as overview
from .driver import HANG_SECONDS, sample, summary
from .program import CC, FuzzTarget, build_runtime

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.c.table_fuzz", description=overview.split("\n\n")[0])
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
