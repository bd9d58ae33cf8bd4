"""Sections of BENCHMARKS.md that one script owns inside a file another script writes.

benchmarks/memory.py writes BENCHMARKS.md whole; benchmarks/latency.py, interpreter_time.py,
mbed.py, zephyr.py, cores.py, cost_model.py, integrity.py and streaming.py each own the block between `<!-- begin NAME -->`
and `<!-- end NAME -->` (mbed.py one in README.md too). Each keeps the others' blocks as it found them.
"""
from __future__ import annotations

import re
from pathlib import Path


def _markers(name: str) -> tuple[str, str]:
    return f"<!-- begin {name} (written by benchmarks/{name}.py) -->", f"<!-- end {name} -->"


def section(path: Path, name: str) -> list[str]:
    """The lines of section `name` in `path`, markers included; none when the file or section is absent."""
    if not path.is_file():
        return []
    begin, end = _markers(name)
    found = re.search(re.escape(begin) + r".*?" + re.escape(end), path.read_text(), re.S)
    return found.group(0).split("\n") if found else []


def section_names(path: Path) -> list[str]:
    """The names of the sections `path` holds, in order (none when the file is absent)."""
    if not path.is_file():
        return []
    return re.findall(r"<!-- begin (\w+) \(written by benchmarks/\w+\.py\) -->", path.read_text())


def write_section(path: Path, name: str, lines: list[str]) -> None:
    """Replace section `name` of `path` by `lines` (appended at the end when it is not there yet)."""
    begin, end = _markers(name)
    block = "\n".join([begin, *lines, end])
    text = path.read_text() if path.is_file() else ""
    old = "\n".join(section(path, name))
    text = text.replace(old, block) if old else text.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(text)
