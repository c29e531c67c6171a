"""What a reader's first `make book` downloads and how long its set-up takes: `make measure-setup`.

Three measurements, written to book/_data/setup.json for appendix 2 to render:

- the first set-up on this machine: `make setup` into a new virtual environment with an empty pip
  cache, timed from start to finish (interpreter choice, venv, every download and install);
- its download: `pip download` of requirements.txt (and the pip the Makefile installs) for this
  machine into an empty folder: how many wheels, how many bytes;
- a Mac's download: the same for macOS 14 on Apple silicon with CPython 3.13 (the Homebrew
  `python@3.13` that set-up suggests), resolved with tools/mac_wheels.py.

pip's configuration files are ignored, and so are local wheel folders and extra indexes named in
the environment, so every wheel comes from the package index, as on a reader's machine.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tools.mac_wheels import PIP, MacTarget

ROOT = Path(__file__).resolve().parent.parent
MAC = MacTarget(python="3.13")
LOCAL_SOURCES = ("PIP_FIND_LINKS", "PIP_EXTRA_INDEX_URL", "PIP_NO_INDEX", "PIP_CONSTRAINT")
OUTER_MAKE = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")  # a `make measure-setup` must not leak into `make setup`


def index_only_environment(cache: Path) -> dict[str, str]:
    """This process's environment, with pip reading nothing but the index, into an empty cache."""
    environment = {name: value for name, value in os.environ.items()
                   if name not in LOCAL_SOURCES + OUTER_MAKE and name != "VIRTUAL_ENV"}
    environment |= {"PIP_CONFIG_FILE": os.devnull, "PIP_CACHE_DIR": str(cache)}
    return environment


def wheels_in(folder: Path) -> dict[str, int]:
    """Files pip downloaded into `folder`: how many wheels, how many other archives, and their bytes."""
    files = [path for path in folder.iterdir() if path.is_file()]
    return {"wheels": sum(path.suffix == ".whl" for path in files),
            "other_archives": sum(path.suffix != ".whl" for path in files),
            "bytes": sum(path.stat().st_size for path in files)}


def time_first_setup(scratch: Path) -> tuple[float, str]:
    """Seconds for `make setup` into a new .venv with an empty pip cache, and the Python it chose."""
    environment = index_only_environment(scratch / "setup-cache")
    venv = scratch / "venv"
    started = time.perf_counter()
    subprocess.run(["make", "--no-print-directory", "setup", f"VENV={venv}"], cwd=ROOT,
                   env=environment, check=True, stdin=subprocess.DEVNULL)
    seconds = time.perf_counter() - started
    version = "import platform; print(platform.python_version())"
    chosen = subprocess.run([str(venv / "bin" / "python"), "-c", version],
                            capture_output=True, text=True, check=True)
    return seconds, chosen.stdout.strip()


def download_here(scratch: Path) -> dict[str, int]:
    """What pip downloads for requirements.txt and the Makefile's pip on this machine."""
    folder = scratch / "here"
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--dest", str(folder), PIP,
                    "-r", str(ROOT / "requirements.txt")],
                   env=index_only_environment(scratch / "here-cache"), check=True)
    return wheels_in(folder)


def download_for_mac(scratch: Path) -> dict[str, int]:
    """What pip downloads for the same on an Apple-silicon Mac (markers and wheels of the Mac)."""
    folder = scratch / "mac"
    subprocess.run([sys.executable, "-m", "tools.mac_wheels", "--python", MAC.python, "--macos", MAC.macos,
                    "--download", str(folder)], cwd=ROOT,
                   env=index_only_environment(scratch / "mac-cache"), check=True)
    return wheels_in(folder)


def measure() -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="measure-setup-") as scratch:
        seconds, python = time_first_setup(Path(scratch))
        here = download_here(Path(scratch))
        mac = download_for_mac(Path(scratch))
    return {
        "measured": datetime.date.today().isoformat(),
        "this_machine": {"platform": platform.platform(), "cpus": os.cpu_count(),
                         "python": python, "setup_seconds": round(seconds, 1), **here},
        "mac": {"platform_tag": MAC.platform_tag, "python": MAC.python, **mac},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.measure_setup",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, required=True, help="write the measurements here")
    options = parser.parse_args(argv)
    result = measure()
    options.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf8")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
