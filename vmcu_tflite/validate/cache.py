"""Where the validation targets keep what they unpack once and reuse: Mbed CE's and Zephyr's
source trees (from the tarballs of ../shared) and the Python environment a Zephyr build imports.

$VMCU_CACHE_DIR, else ~/.cache/vmcu-tflite. A tree is extracted under its tarball's digest, in a
staging folder renamed into place, so concurrent runs (pytest-xdist workers) extract at most once
each and never see half a tree.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import tarfile
import tempfile
from pathlib import Path
from typing import Callable

from ..errors import UsageError

ROOT = Path(__file__).resolve().parents[2]


def cache_dir() -> Path:
    return Path(os.environ.get("VMCU_CACHE_DIR") or Path.home() / ".cache" / "vmcu-tflite")


def extract_once(tarball: Path, prefix: str, complete: Callable[[Path], bool], what: str) -> Path:
    """The folder of the cache `tarball` is extracted into (`<prefix>-<digest>`), extracting it the
    first time; `complete(folder)` says whether a folder holds what the tarball should."""
    digest = hashlib.sha256(tarball.read_bytes()).hexdigest()[:16]
    home = cache_dir() / f"{prefix}-{digest}"
    if not complete(home):
        home.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix="extracting-", dir=home.parent))
        with tarfile.open(tarball) as archive:
            archive.extractall(staging, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
        try:
            staging.rename(home)  # atomic: a concurrent extraction of the same tarball wins or loses whole
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)
        if not complete(home):
            raise UsageError(f"{tarball} holds no {what}")
    return home


def find_source(given: Path | None, variable: str, shared: str, usable: Callable[[Path], bool]) -> tuple[Path | None, str]:
    """The first folder `usable` accepts of: `given`, else $`variable`, else ../shared/`shared` next to
    the repository or the working directory; with where it looked, for the error that none is."""
    if given:
        candidates, where = [given], str(given)
    elif os.environ.get(variable):
        candidates = [Path(os.environ[variable])]
        where = f"${variable} ({candidates[0]})"
    else:
        candidates = [ROOT.parent / "shared" / shared, Path.cwd().parent / "shared" / shared]
        where = " or ".join(str(c) for c in candidates)
    return next((folder for folder in candidates if usable(folder)), None), where
