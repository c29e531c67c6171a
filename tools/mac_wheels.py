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
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OLDEST_MACOS = "14.0"  # mlx 0.29.4 and later ship macOS wheels for 14.0 and newer only
PIP = "pip>=26.0,<27"  # the pip set-up installs first (the Makefile says the same)


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


def resolve(target: MacTarget, report: Path, scratch: Path, requirements: Path) -> int:
    """`pip install --dry-run --report` for the Mac: resolves, and checks that each pick is a wheel."""
    return run_pip(target, ["install", "--dry-run", "--quiet", "--ignore-installed", "--report", str(report),
                            "--target", str(scratch), *target.pip_options(), PIP, "-r", str(requirements)])


def download(target: MacTarget, destination: Path, requirements: Path) -> int:
    """`pip download` for the Mac: every wheel a first set-up there fetches, into `destination`."""
    return run_pip(target, ["download", "--quiet", "--dest", str(destination), *target.pip_options(), PIP,
                            "-r", str(requirements)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.mac_wheels", description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=MacTarget.python, help="the Mac's Python, e.g. 3.13")
    parser.add_argument("--macos", default=MacTarget.macos, help="the Mac's macOS, e.g. 15.0")
    parser.add_argument("--requirements", type=Path, default=ROOT / "requirements.txt")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--report", type=Path, help="write pip's installation report (JSON) here")
    action.add_argument("--download", type=Path, help="download the wheels into this folder")
    options = parser.parse_args(argv)
    target = MacTarget(options.python, options.macos)
    if options.download:
        return download(target, options.download, options.requirements)
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
