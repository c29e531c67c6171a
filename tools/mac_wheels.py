"""Resolve requirements.txt as an M-series Mac would, from any machine: which wheels a Mac gets.

`pip install --platform macosx_14_0_arm64 --python-version 3.12` picks wheels for that platform but
still evaluates environment markers (`sys_platform == "darwin"`, `python_version < "3.11"`) for the
machine pip runs on, so on Linux it installs `mlx[cpu]` and skips every Mac-only dependency
(pypa/pip#11664, https://github.com/pypa/pip/issues/11664, open for pip 26.3). This module runs
pip's own resolver with the marker environment of the target Mac instead, the way pex works around
the same issue. Written for pip 26.3 (the Makefile pins pip to 26.x); `main` stops with a message
when the report shows the markers were not replaced.

    python -m tools.mac_wheels --report report.json     # resolve only (downloads metadata)
    python -m tools.mac_wheels --download wheels/        # download every wheel a Mac would
    python -m tools.mac_wheels --check-source-only       # the SOURCE_ONLY archives are pure Python

A requirement in `SOURCE_ONLY` has no wheel at all: it is left out of the wheel resolution, and
`--check-source-only` checks instead that its source archive is pure Python (nothing to compile), so
that `pip install -r requirements.txt` builds it on a Mac with setuptools alone (once: the archive
is the same for every Mac).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OLDEST_MACOS = "14.0"  # mlx 0.29.4 and later ship macOS wheels for 14.0 and newer only
PIP = "pip>=26.0,<27"  # the pip set-up installs first (the Makefile says the same)
SOURCE_ONLY = {
    "jieba": "jieba 0.42.1, its newest release, is on PyPI as a source archive only "
             "(https://pypi.org/project/jieba/0.42.1/#files)",
}
"""Requirements with no wheel for any platform, and why: they must be pure Python."""
COMPILED_SOURCES = (".c", ".cc", ".cpp", ".cxx", ".pyx", ".m", ".rs", ".f90")
REQUIREMENT_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


@dataclass(frozen=True)
class MacTarget:
    """An Apple-silicon Mac with a CPython: the wheel tag and PEP 508 marker values pip needs."""

    python: str = "3.12"
    macos: str = OLDEST_MACOS

    @property
    def platform_tag(self) -> str:
        major, minor = self.macos.split(".")[:2]
        return f"macosx_{major}_{minor}_arm64"

    def markers(self) -> dict[str, str]:
        full = f"{self.python}.0"
        return {
            "implementation_name": "cpython", "implementation_version": full, "os_name": "posix",
            "platform_machine": "arm64", "platform_python_implementation": "CPython",
            "platform_release": "", "platform_system": "Darwin", "platform_version": "",
            "python_full_version": full, "python_version": self.python, "sys_platform": "darwin",
        }

    def pip_options(self) -> list[str]:
        return ["--only-binary=:all:", "--platform", self.platform_tag, "--python-version", self.python,
                "--implementation", "cp"]


def run_pip(target: MacTarget, arguments: list[str]) -> int:
    """pip's command line, in this process, with every marker evaluated for `target`."""
    from pip._internal.cli.main import main as pip_main
    from pip._vendor.packaging import markers

    mac = target.markers()
    markers.default_environment = lambda: dict(mac)  # Marker.evaluate() looks this name up per call
    return pip_main(arguments)


def requirement_name(line: str) -> str | None:
    """The project a requirements.txt line names (normalized), or None for a comment or blank line."""
    found = REQUIREMENT_NAME.match(line.split("#", 1)[0])
    return re.sub(r"[-_.]+", "-", found[1]).lower() if found else None


def split_requirements(requirements: Path) -> tuple[str, list[str]]:
    """requirements.txt without the `SOURCE_ONLY` lines, and those lines."""
    kept, source_only = [], []
    for line in requirements.read_text("utf8").splitlines():
        (source_only if requirement_name(line) in SOURCE_ONLY else kept).append(line)
    return "\n".join(kept) + "\n", [line.split("#", 1)[0].strip() for line in source_only]


def resolve(target: MacTarget, report: Path, scratch: Path, requirements: Path) -> int:
    """`pip install --dry-run --report` for the Mac: resolves, and checks that each pick is a wheel
    (the `SOURCE_ONLY` requirements aside)."""
    wheels, _ = split_requirements(requirements)
    scratch.mkdir(parents=True, exist_ok=True)
    only_wheels = scratch / "requirements-with-wheels.txt"
    only_wheels.write_text(wheels, "utf8")
    return run_pip(target, ["install", "--dry-run", "--quiet", "--ignore-installed", "--report", str(report),
                            "--target", str(scratch / "target"), *target.pip_options(), PIP,
                            "-r", str(only_wheels)])


def compiled_parts(archive: Path) -> list[str]:
    """What in a source archive would need a compiler: compiled-language sources, `ext_modules`."""
    found = []
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            if member.name.endswith(COMPILED_SOURCES):
                found.append(member.name)
            elif member.name.count("/") == 1 and member.name.endswith(("setup.py", "pyproject.toml")):
                text = tar.extractfile(member).read().decode("utf8", "replace")  # type: ignore[union-attr]
                if "ext_modules" in text or "Extension(" in text:
                    found.append(f"{member.name} (builds an extension module)")
    return found


def check_source_only(requirements: Path) -> list[str]:
    """Each `SOURCE_ONLY` requirement's source archive downloaded (no dependencies: it must have none
    to resolve) and read: the problems, empty when every one is pure Python."""
    _, lines = split_requirements(requirements)
    problems = []
    for line in lines:
        with tempfile.TemporaryDirectory() as folder:
            done = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                                   "--no-binary=:all:", "--dest", folder, line],
                                  capture_output=True, text=True, timeout=600)
            archives = sorted(Path(folder).glob("*.tar.gz"))
            if done.returncode != 0 or not archives:
                why = (done.stderr.strip().splitlines() or ["pip found none"])[-1]
                problems.append(f"{line}: no source archive ({why})")
                continue
            problems += [f"{line}: {part} needs a compiler on the Mac"
                         for part in compiled_parts(archives[0])]
    return problems


def download(target: MacTarget, destination: Path, requirements: Path) -> int:
    """`pip download` for the Mac: every wheel a first set-up there fetches, and the `SOURCE_ONLY`
    source archives, into `destination`."""
    wheels, source_only = split_requirements(requirements)
    destination.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        only_wheels = Path(folder) / "requirements-with-wheels.txt"
        only_wheels.write_text(wheels, "utf8")
        status = run_pip(target, ["download", "--quiet", "--dest", str(destination), *target.pip_options(),
                                  PIP, "-r", str(only_wheels)])
    if status != 0 or not source_only:
        return status
    return subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                           "--no-binary=:all:", "--dest", str(destination), *source_only],
                          check=False).returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.mac_wheels", description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=MacTarget.python, help="the Mac's Python, e.g. 3.13")
    parser.add_argument("--macos", default=MacTarget.macos, help="the Mac's macOS, e.g. 15.0")
    parser.add_argument("--requirements", type=Path, default=ROOT / "requirements.txt")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--report", type=Path, help="write pip's installation report (JSON) here")
    action.add_argument("--download", type=Path, help="download the wheels into this folder")
    action.add_argument("--check-source-only", action="store_true",
                        help="check that each SOURCE_ONLY requirement's source archive is pure Python")
    options = parser.parse_args(argv)
    target = MacTarget(options.python, options.macos)
    if options.download:
        return download(target, options.download, options.requirements)
    if options.check_source_only:
        problems = check_source_only(options.requirements)
        print("\n".join(problems) or "every SOURCE_ONLY requirement is pure Python",
              file=sys.stderr if problems else sys.stdout)
        return 4 if problems else 0
    scratch = options.report.with_name(options.report.name + ".target")
    status = resolve(target, options.report, scratch, options.requirements)
    if status == 0:
        seen = json.loads(options.report.read_text("utf8"))["environment"]
        if seen.get("sys_platform") != "darwin":
            print(f"pip resolved for {seen.get('sys_platform')}, not darwin: the marker patch no longer "
                  "works with this pip (see pypa/pip#11664)", file=sys.stderr)
            return 3
    return status


if __name__ == "__main__":
    sys.exit(main())
