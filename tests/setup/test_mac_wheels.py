"""requirements.txt resolves to wheels on an M-series Mac: caught here, on Linux, before a reader is.

tools/mac_wheels.py runs pip's resolver for macOS on Apple silicon (its markers and its wheel tags).
These tests need the package index and are skipped, with the reason, when it cannot be reached.
"""

from __future__ import annotations

import functools
import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tools.mac_wheels import PIP

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.network, pytest.mark.slow]
WHEEL_TAGS = re.compile(r"-(?P<python>[^-]+)-(?P<abi>[^-]+)-(?P<platform>[^-]+)\.whl$")
MACOS_TAG = re.compile(r"^macosx_(?P<major>\d+)_(?P<minor>\d+)_(?P<arch>\w+)$")
# (Python, macOS) pairs: the oldest and newest Python set-up picks, on the oldest macOS the book
# supports; and on macOS 13, below that minimum, where the book's text says what pip does.
TARGETS = [("3.10", "14.0"), ("3.14", "14.0"), ("3.12", "13.0"), ("3.14", "13.0")]


@functools.cache
def index_unreachable() -> str | None:
    """Why the package index cannot be reached, or None when it answers."""
    asked = subprocess.run([sys.executable, "-m", "pip", "index", "versions", "mlx", "--timeout", "15",
                            "--retries", "1"], capture_output=True, text=True, timeout=120)
    if asked.returncode == 0 and "mlx" in asked.stdout:
        return None
    return (asked.stderr.strip().splitlines() or ["no answer"])[-1]


@functools.cache
def resolutions(scratch: str) -> dict[tuple[str, str], subprocess.CompletedProcess[str]]:
    """Every target resolved once, side by side (each waits on the network, not the CPU)."""
    def resolve(target: tuple[str, str]) -> subprocess.CompletedProcess[str]:
        python, macos = target
        report = Path(scratch) / f"py{python}-macos{macos}.json"
        command = [sys.executable, "-m", "tools.mac_wheels", "--python", python, "--macos", macos,
                   "--report", str(report)]
        return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)

    with ThreadPoolExecutor(len(TARGETS)) as pool:
        return dict(zip(TARGETS, pool.map(resolve, TARGETS), strict=True))


@pytest.fixture(scope="module")
def resolved(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], subprocess.CompletedProcess]:
    reason = index_unreachable()
    if reason is not None:
        pytest.skip(f"the package index cannot be reached (pip index versions mlx: {reason})")
    return resolutions(str(tmp_path_factory.mktemp("mac-wheels")))


def report_of(result: subprocess.CompletedProcess[str]) -> dict:
    path = Path(result.args[result.args.index("--report") + 1])
    return json.loads(path.read_text("utf8"))


def wheel_name(item: dict) -> str:
    return item["download_info"]["url"].rsplit("/", 1)[-1]


@pytest.mark.parametrize("python", ["3.10", "3.14"])
def test_every_requirement_has_a_wheel_for_macos_14_on_apple_silicon(resolved, python: str) -> None:
    result = resolved[(python, "14.0")]
    assert result.returncode == 0, f"no Mac resolution for Python {python}:\n{result.stderr[-3000:]}"
    report = report_of(result)
    assert report["environment"]["sys_platform"] == "darwin"
    assert report["environment"]["platform_machine"] == "arm64"
    names = {item["metadata"]["name"].lower() for item in report["install"]}
    assert {"mlx", "mlx-metal", "pip", "jupyter-book", "playwright", "appnope"} <= names, sorted(names)
    assert "mlx-cpu" not in names, "the Linux line of requirements.txt was taken for the Mac"
    for item in report["install"]:
        wheel = WHEEL_TAGS.search(wheel_name(item))
        assert wheel, f"{wheel_name(item)} is not a wheel: a Mac would have to build it"
        platforms = wheel["platform"].split(".")
        macos = [MACOS_TAG.match(tag) for tag in platforms if tag.startswith("macosx_")]
        assert platforms == ["any"] or any(
            tag["arch"] in {"arm64", "universal2"} and (int(tag["major"]), int(tag["minor"])) <= (14, 0)
            for tag in macos if tag), f"{wheel_name(item)} does not install on macOS 14 arm64"


def test_below_macos_14_pip_falls_back_to_mlx_0_29_3_and_python_3_14_has_no_mlx(resolved) -> None:
    older = resolved[("3.12", "13.0")]
    assert older.returncode == 0, older.stderr[-3000:]
    mlx = [wheel_name(item) for item in report_of(older)["install"] if item["metadata"]["name"] == "mlx"]
    assert mlx == ["mlx-0.29.3-cp312-cp312-macosx_13_0_arm64.whl"]
    newest = resolved[("3.14", "13.0")]
    assert newest.returncode != 0 and "No matching distribution found for mlx" in newest.stderr


def test_the_makefile_installs_the_pip_the_workaround_was_written_for() -> None:
    assert f'"{PIP}"' in (ROOT / "Makefile").read_text("utf8")


@pytest.mark.parametrize(("glibc", "resolves"), [("2_35", True), ("2_34", False)])
def test_mlx_on_linux_needs_glibc_2_35(resolved, tmp_path: Path, glibc: str, resolves: bool) -> None:
    """The book says: Ubuntu 22.04 (glibc 2.35) works, RHEL 9 (2.34) does not."""
    command = [sys.executable, "-m", "pip", "install", "--dry-run", "--quiet", "--ignore-installed",
               "--no-deps", "--only-binary=:all:", "--platform", f"manylinux_{glibc}_x86_64",
               "--python-version", "3.12", "--target", str(tmp_path), "mlx-cpu>=0.29,<0.40"]
    asked = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert (asked.returncode == 0) == resolves, asked.stderr[-2000:]


# ----- requirements without a wheel (tools.mac_wheels.SOURCE_ONLY) ---------------------------------


def source_archive(folder: Path, files: dict[str, str]) -> Path:
    import io
    import tarfile

    archive = folder / "project-1.0.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for name, text in files.items():
            data = text.encode("utf8")
            member = tarfile.TarInfo(f"project-1.0/{name}")
            member.size = len(data)
            tar.addfile(member, io.BytesIO(data))
    return archive


@pytest.mark.parametrize(("files", "needs"), [
    ({"setup.py": "from setuptools import setup\nsetup(name='p')", "p/__init__.py": ""}, []),
    ({"setup.py": "setup(ext_modules=[Extension('p._fast', ['p/fast.c'])])", "p/fast.c": ""},
     ["project-1.0/setup.py (builds an extension module)", "project-1.0/p/fast.c"]),
])
def test_a_source_archive_is_pure_python_unless_it_has_something_to_compile(
        tmp_path: Path, files: dict[str, str], needs: list[str]) -> None:
    from tools.mac_wheels import compiled_parts

    assert sorted(compiled_parts(source_archive(tmp_path, files))) == sorted(needs)


def test_the_source_only_requirements_leave_the_wheel_resolution_and_only_they(tmp_path: Path) -> None:
    from tools.mac_wheels import SOURCE_ONLY, requirement_name, split_requirements

    wheels, source_only = split_requirements(ROOT / "requirements.txt")
    assert [requirement_name(line) for line in source_only] == list(SOURCE_ONLY) == ["jieba"]
    names = {requirement_name(line) for line in wheels.splitlines()} - {None}
    assert "jieba" not in names and {"sphinx-intl", "mlx", "jupyter-book"} <= names


def test_jieba_has_no_wheel_and_its_source_archive_is_pure_python(resolved) -> None:
    """Left out of every Mac's wheel resolution; its one archive checked once (exit 4 if it compiles)."""
    result = resolved[("3.14", "14.0")]
    assert result.returncode == 0, result.stderr[-3000:]
    names = {item["metadata"]["name"].lower() for item in report_of(result)["install"]}
    assert "jieba" not in names
    checked = subprocess.run([sys.executable, "-m", "tools.mac_wheels", "--check-source-only"], cwd=ROOT,
                             capture_output=True, text=True, timeout=600)
    assert checked.returncode == 0, checked.stderr[-3000:]
