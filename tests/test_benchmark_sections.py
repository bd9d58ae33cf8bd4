"""BENCHMARKS.md is written by two scripts: each keeps the other's part (benchmarks/sections.py)."""
from __future__ import annotations

from benchmarks.sections import section, section_names, write_section


def test_a_section_is_appended_then_replaced_in_place(tmp_path):
    path = tmp_path / "BENCHMARKS.md"
    path.write_text("# Benchmarks\n\nmemory tables\n")
    write_section(path, "latency", ["## Latency", "old"])
    assert path.read_text().startswith("# Benchmarks\n\nmemory tables\n\n<!-- begin latency")
    write_section(path, "latency", ["## Latency", "new"])
    text = path.read_text()
    assert text.count("<!-- begin latency") == 1 and "old" not in text and "new" in text
    assert text.startswith("# Benchmarks\n\nmemory tables\n")
    assert section(path, "latency")[1:-1] == ["## Latency", "new"]


def test_a_missing_file_or_section_has_no_lines(tmp_path):
    assert section(tmp_path / "absent.md", "latency") == []
    (tmp_path / "plain.md").write_text("no markers\n")
    assert section(tmp_path / "plain.md", "latency") == []


def test_every_section_is_found_by_name(tmp_path):
    """memory.py rewrites the file whole and keeps every section another script wrote."""
    path = tmp_path / "BENCHMARKS.md"
    path.write_text("# Benchmarks\n")
    for name in ("latency", "cores", "mbed"):
        write_section(path, name, [f"## {name}"])
    assert section_names(path) == ["latency", "cores", "mbed"]
