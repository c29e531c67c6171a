"""`make measure-setup` writes book/_data/setup.json, and appendix 2 renders that file, not typed numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from book_outputs import ROOT, book_build, glued  # noqa: F401 (book_build is a fixture)

from tools.measure_setup import index_only_environment, wheels_in

SETUP_JSON = ROOT / "book" / "_data" / "setup.json"


def test_counting_what_pip_downloaded(tmp_path: Path) -> None:
    (tmp_path / "mlx-0.32.4-cp312-cp312-macosx_14_0_arm64.whl").write_bytes(b"x" * 300)
    (tmp_path / "six-1.17.0-py2.py3-none-any.whl").write_bytes(b"x" * 20)
    (tmp_path / "old-1.0.tar.gz").write_bytes(b"x" * 5)
    assert wheels_in(tmp_path) == {"wheels": 2, "other_archives": 1, "bytes": 325}


def test_the_measurement_reads_only_the_index_and_no_outer_make(monkeypatch, tmp_path: Path) -> None:
    for name, value in {"PIP_FIND_LINKS": "/wheels", "PIP_EXTRA_INDEX_URL": "file:///mirror",
                        "MAKEFLAGS": "PYTHON=python3.9", "PIP_CERT": "/ca.pem"}.items():
        monkeypatch.setenv(name, value)
    environment = index_only_environment(tmp_path / "cache")
    assert not {"PIP_FIND_LINKS", "PIP_EXTRA_INDEX_URL", "MAKEFLAGS"} & set(environment)
    assert environment["PIP_CERT"] == "/ca.pem" and environment["PIP_CACHE_DIR"] == str(tmp_path / "cache")


def test_the_committed_measurement_is_a_whole_one() -> None:
    setup = json.loads(SETUP_JSON.read_text("utf8"))
    for side in ("this_machine", "mac"):
        assert setup[side]["wheels"] > 0 and setup[side]["bytes"] > 0 and setup[side]["other_archives"] == 0
    assert setup["this_machine"]["setup_seconds"] > 0
    assert setup["mac"]["platform_tag"] == "macosx_14_0_arm64"


@pytest.mark.slow
@pytest.mark.usefixtures("book_build")
def test_appendix_2_shows_the_numbers_of_setup_json() -> None:
    setup = json.loads(SETUP_JSON.read_text("utf8"))
    shown = glued("a2-on-your-mac")
    assert shown["setup_here_mb"] == f"{setup['this_machine']['bytes'] / 1e6:.0f} MB"
    assert shown["setup_mac_mb"] == f"{setup['mac']['bytes'] / 1e6:.0f} MB"
    assert shown["setup_seconds"] == f"{setup['this_machine']['setup_seconds']:.0f}"
    assert shown["setup_measured"] == setup["measured"]
