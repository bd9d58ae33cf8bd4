"""The wheel must carry the whole C runtime: vmcu-convert copies it next to every generated model."""
from __future__ import annotations

import configparser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_package_data_covers_every_runtime_file():
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    patterns = [p.strip() for p in config["options.package_data"]["vmcu_tflite.csrc"].split(",")]
    csrc = ROOT / "csrc"
    packaged = {path for pattern in patterns for path in csrc.glob(pattern) if path.is_file()}
    present = {path for path in csrc.rglob("*") if path.is_file() and "__pycache__" not in path.parts}
    assert present - packaged == set(), sorted(str(p.relative_to(csrc)) for p in present - packaged)


def test_every_python_package_is_installed():
    """A subpackage missing from setup.cfg works in the editable install the tests use and breaks
    a plain `pip install`."""
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    listed = {p.strip() for p in config["options"]["packages"].split() if p.strip()}
    found = {".".join(("vmcu_reference" if top == "reference" else top,) + init.parent.relative_to(ROOT / top).parts)
             for top in ("vmcu_tflite", "reference") for init in (ROOT / top).rglob("__init__.py")}
    assert found - listed == set()
