"""The wheel must carry the whole C runtime (vmcu-convert copies it next to every generated model)
, the Mbed example and the Zephyr module and example (vmcu-validate builds them)."""
from __future__ import annotations

import configparser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("package, folder", [("vmcu_tflite.csrc", "csrc"), ("vmcu_tflite.mbed_example", "examples/mbed"),
                                             ("vmcu_tflite.zephyr", "zephyr"),
                                             ("vmcu_tflite.zephyr_example", "examples/zephyr")])
def test_package_data_covers_every_file(package, folder):
    """The runtime (copied next to every generated model) and the Mbed example (vmcu-validate builds it)."""
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    patterns = [p.strip() for p in config["options.package_data"][package].split(",")]
    assert config["options"]["package_dir"].split(f"{package} = ")[1].split()[0] == folder
    source = ROOT / folder
    packaged = {path for pattern in patterns for path in source.glob(pattern) if path.is_file()}
    present = {path for path in source.rglob("*") if path.is_file() and "__pycache__" not in path.parts}
    assert present - packaged == set(), sorted(str(p.relative_to(source)) for p in present - packaged)


def test_every_python_package_is_installed():
    """A subpackage missing from setup.cfg works in the editable install the tests use and breaks
    a plain `pip install`."""
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    listed = {p.strip() for p in config["options"]["packages"].split() if p.strip()}
    found = {".".join(("vmcu_reference" if top == "reference" else top,) + init.parent.relative_to(ROOT / top).parts)
             for top in ("vmcu_tflite", "reference") for init in (ROOT / top).rglob("__init__.py")}
    assert found - listed == set()
