"""Set-up on a machine like a stock Mac: which Python builds .venv, and when .venv is rebuilt.

tools/setup-python.sh runs with a PATH made here: stand-in `python3.X` scripts that answer its
probe the way a Python of that version and architecture would, stand-ins for `uname`, `sysctl`,
`sw_vers` and `getconf` that describe the machine, and the real `sh`, `make` and file tools. A
stand-in Python also answers `-m venv DIR` by copying itself to DIR/bin/python, so a whole set-up
on an Apple-silicon Mac can be played on Linux. Two tests use the real interpreter running pytest.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "setup-python.sh"
REAL_TOOLS = ("sh", "make", "rm", "mkdir", "cp", "cat", "env")


@dataclass(frozen=True)
class Machine:
    """What the stand-in system tools report."""

    os: str = "Linux"
    glibc: str | None = "2.36"
    apple_silicon: bool = True
    macos: str = "14.5"


LINUX = Machine()
APPLE_SILICON_MAC = Machine(os="Darwin", glibc=None)


def write_script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


class FakeSystem:
    """A PATH of stand-ins in a temporary folder, and a way to run set-up under it."""

    def __init__(self, root: Path, machine: Machine = LINUX) -> None:
        self.root, self.bin, self.tools = root, root / "shims", root / "tools"
        self.bin.mkdir()
        self.tools.mkdir()
        for name in REAL_TOOLS:
            found = shutil.which(name)
            assert found, f"the set-up tests need `{name}` on PATH"
            (self.tools / name).symlink_to(found)
        self.describe(machine)

    def describe(self, machine: Machine) -> None:
        arch = "arm64" if machine.os == "Darwin" and machine.apple_silicon else "x86_64"
        write_script(self.tools / "uname", f'case "$1" in -m) echo {arch} ;; *) echo {machine.os} ;; esac\n')
        write_script(self.tools / "sysctl", f"echo {1 if machine.apple_silicon else 0}\n")
        write_script(self.tools / "sw_vers", f"echo {machine.macos}\n")
        write_script(self.tools / "getconf",
                     f"echo 'glibc {machine.glibc}'\n" if machine.glibc else "echo 'undefined' >&2; exit 1\n")

    def python(self, name: str, version: str, machine: str = "x86_64") -> Path:
        """A stand-in interpreter that says it is Python `version` built for `machine`."""
        major, minor = version.split(".")[:2]
        return write_script(self.bin / name, f"""\
case "$1" in
  -c) echo "{major} {minor} {version} {machine}" ;;
  -m) [ "$2" = venv ] && mkdir -p "$3/bin" && cp "$0" "$3/bin/python" &&
      echo "version = {version}" > "$3/pyvenv.cfg" ;;
  *) exit 2 ;;
esac
""")

    def broken_python(self, name: str) -> Path:
        """What pyenv leaves on PATH for a version that is not selected: a shim that fails."""
        return write_script(self.bin / name, f"echo 'pyenv: {name}: command not found' >&2\nexit 127\n")

    def real_python(self, name: str) -> Path:
        (self.bin / name).symlink_to(os.path.realpath(sys.executable))
        return self.bin / name

    def venv(self, python: Path, name: str = "venv") -> Path:
        """A virtual environment as `python -m venv` leaves it, with a stamp set-up writes."""
        folder = self.root / name
        (folder / "bin").mkdir(parents=True)
        (folder / "pyvenv.cfg").write_text("home = elsewhere\n")
        (folder / ".installed").touch()
        shutil.copy(python, folder / "bin" / "python")
        return folder

    def environment(self, python: str | None) -> dict[str, str]:
        environment = {"PATH": f"{self.bin}{os.pathsep}{self.tools}", "HOME": str(self.root)}
        if python is not None:
            environment["PYTHON"] = python
        return environment

    def run(self, *arguments: str, python: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["sh", str(SCRIPT), *arguments], env=self.environment(python),
                              capture_output=True, text=True, timeout=120, executable=self.tools / "sh")

    def make(self, target: str, venv: Path, python: str | None = None) -> subprocess.CompletedProcess[str]:
        command = ["make", "--no-print-directory", "-C", str(ROOT), target, f"VENV={venv}"]
        if python is not None:
            command.append(f"PYTHON={python}")
        return subprocess.run(command, env=self.environment(None), capture_output=True, text=True,
                              timeout=300, executable=self.tools / "make")


@pytest.fixture
def linux(tmp_path: Path) -> FakeSystem:
    return FakeSystem(tmp_path, LINUX)


@pytest.fixture
def mac(tmp_path: Path) -> FakeSystem:
    return FakeSystem(tmp_path, APPLE_SILICON_MAC)


PROBE = "import sys, platform; print('%d %d %s %s' % (*sys.version_info[:2], platform.python_version(), " \
        "platform.machine()))"


def answer(venv: Path, system: FakeSystem) -> str:
    """What the environment's python says it is (the stand-ins echo their own description)."""
    probed = subprocess.run([str(venv / "bin" / "python"), "-c", PROBE], capture_output=True, text=True,
                            env=system.environment(None), check=True)
    return probed.stdout.strip()


# Which Python.

def test_picks_the_newest_python_that_runs_over_an_old_python3(linux: FakeSystem) -> None:
    linux.python("python3", "3.9.6")
    linux.python("python3.10", "3.10.14")
    linux.python("python3.12", "3.12.4")
    linux.broken_python("python3.13")
    picked = linux.run("pick")
    assert picked.returncode == 0, picked.stderr
    assert picked.stdout.strip() == str(linux.bin / "python3.12")


def test_uses_python3_when_no_versioned_name_exists_and_it_is_new_enough(linux: FakeSystem) -> None:
    linux.python("python3", "3.11.9")
    assert linux.run("pick").stdout.strip() == str(linux.bin / "python3")


def test_stops_with_what_to_do_when_only_python_3_9_exists(linux: FakeSystem) -> None:
    linux.python("python3", "3.9.6")
    linux.broken_python("python3.13")
    picked = linux.run("pick")
    assert picked.returncode != 0 and picked.stdout == ""
    message = picked.stderr
    assert message.startswith("No Python 3.10 or newer that can run MLX here"), message
    assert f"python3 ({linux.bin / 'python3'}): Python 3.9.6, older than 3.10" in message
    assert f"python3.13 ({linux.bin / 'python3.13'}): does not run" in message
    for way in ("brew install python@3.13", "python.org", "uv python install", "PYTHON=/path/to/python3"):
        assert way in message, f"the message does not name {way!r}:\n{message}"
    assert "Traceback" not in message and "AssertionError" not in message


def test_stops_when_there_is_no_python_at_all(linux: FakeSystem) -> None:
    picked = linux.run("pick")
    assert picked.returncode != 0 and picked.stderr.startswith("No Python 3.10 or newer"), picked.stderr
    assert "none of python3.14 ... python3.10 or python3 is on PATH" in picked.stderr
    assert "brew install python@3.13" in picked.stderr


def test_PYTHON_names_the_interpreter_even_when_a_newer_one_exists(linux: FakeSystem) -> None:
    linux.python("python3.12", "3.12.4")
    chosen = linux.python("python3.10", "3.10.14")
    assert linux.run("pick", python=str(chosen)).stdout.strip() == str(chosen)
    assert linux.run("pick", python="python3.10").stdout.strip() == str(chosen)


@pytest.mark.parametrize(("name", "said"), [("python3.9", "Python 3.9.6, older than 3.10"),
                                            ("python2.7", "Python 2.7.18, older than 3.10"),
                                            ("python3.13", "does not run"),
                                            ("python-missing", "no such command")])
def test_PYTHON_that_cannot_build_the_environment_stops_and_says_why(linux: FakeSystem, name: str,
                                                                     said: str) -> None:
    linux.python("python3.12", "3.12.4")  # a good one exists, but PYTHON asked for another
    linux.python("python3.9", "3.9.6")
    linux.python("python2.7", "2.7.18")
    linux.broken_python("python3.13")
    picked = linux.run("pick", python=name)
    assert picked.returncode != 0 and picked.stdout == "" and picked.stderr.startswith(f"PYTHON={name}")
    assert f"PYTHON={name}" in picked.stderr and said in picked.stderr
    assert "brew install python@3.13" in picked.stderr


# The machine: Rosetta, Intel Macs, old macOS, old glibc.

def test_an_x86_64_python_on_apple_silicon_is_passed_over_for_an_arm64_one(mac: FakeSystem) -> None:
    mac.python("python3.13", "3.13.1", machine="x86_64")  # Intel Homebrew in /usr/local
    mac.python("python3.12", "3.12.4", machine="arm64")
    assert mac.run("pick").stdout.strip() == str(mac.bin / "python3.12")


def test_only_x86_64_pythons_on_apple_silicon_stops_naming_rosetta(mac: FakeSystem) -> None:
    mac.python("python3", "3.9.6", machine="arm64")
    mac.python("python3.13", "3.13.1", machine="x86_64")
    picked = mac.run("pick")
    assert picked.returncode != 0 and picked.stderr.startswith("No Python 3.10 or newer"), picked.stderr
    rosetta = "Python 3.13.1 for x86_64, which runs under Rosetta: MLX has no x86_64 macOS wheels"
    assert rosetta in picked.stderr
    assert "arch -arm64 make book" in picked.stderr
    explicit = mac.run("pick", python="python3.13")
    assert explicit.returncode != 0 and "Rosetta" in explicit.stderr and "arch -arm64" in explicit.stderr


@pytest.mark.parametrize(("machine", "said"), [
    (Machine(os="Darwin", apple_silicon=False), "MLX runs only on Apple silicon"),
    (Machine(os="Darwin", macos="13.6.7"), "needs macOS 14 (Sonoma) or newer"),
    (Machine(glibc="2.34"), "need glibc 2.35 or newer: Ubuntu 22.04+, Debian 12+"),
    (Machine(glibc=None), "This Linux has no glibc"),
    (Machine(os="FreeBSD"), "MLX ships wheels for macOS on Apple silicon and for Linux only"),
])
def test_a_machine_mlx_has_no_wheels_for_stops_before_any_python_is_tried(tmp_path: Path, machine: Machine,
                                                                          said: str) -> None:
    system = FakeSystem(tmp_path, machine)
    system.python("python3.12", "3.12.4", machine="arm64" if machine.os == "Darwin" else "x86_64")
    picked = system.run("pick")
    assert picked.returncode != 0 and picked.stdout == ""
    assert said in " ".join(picked.stderr.split()), picked.stderr


def test_macos_14_and_glibc_2_35_are_enough(tmp_path: Path) -> None:
    for folder, machine in (("mac", Machine(os="Darwin", macos="14.0")), ("linux", Machine(glibc="2.35"))):
        (tmp_path / folder).mkdir()
        system = FakeSystem(tmp_path / folder, machine)
        arch = "arm64" if machine.os == "Darwin" else "x86_64"
        python = system.python("python3.12", "3.12.4", machine=arch)
        assert system.run("pick").stdout.strip() == str(python), machine


# A stale .venv.

def test_a_venv_made_with_python_3_9_is_rebuilt_with_a_newer_python(linux: FakeSystem) -> None:
    venv = linux.venv(linux.python("python3", "3.9.6"))
    linux.python("python3.12", "3.12.4")
    made = linux.run("venv", str(venv))
    assert made.returncode == 0, made.stderr
    assert f"Recreating {venv}: it was made with Python 3.9.6, older than 3.10." in made.stdout
    assert f"Creating {venv} with {linux.bin / 'python3.12'} (Python 3.12.4, x86_64)." in made.stdout
    assert answer(venv, linux) == "3 12 3.12.4 x86_64"
    assert not (venv / ".installed").exists(), "the install stamp must go with the old environment"


def test_a_venv_whose_python_was_removed_is_rebuilt(linux: FakeSystem) -> None:
    venv = linux.venv(linux.python("python3.11", "3.11.9"))
    (venv / "bin" / "python").unlink()
    (venv / "bin" / "python").symlink_to(linux.root / "uninstalled" / "python3.11")
    linux.python("python3.12", "3.12.4")
    made = linux.run("venv", str(venv))
    assert made.returncode == 0, made.stderr
    assert "its Python no longer runs" in made.stdout
    assert answer(venv, linux) == "3 12 3.12.4 x86_64"


def test_a_stale_venv_is_kept_when_there_is_no_python_to_rebuild_it_with(linux: FakeSystem) -> None:
    venv = linux.venv(linux.python("python3", "3.9.6"))
    made = linux.run("venv", str(venv))
    assert made.returncode != 0 and made.stdout == ""
    assert made.stderr.startswith(f"{venv} cannot be reused: it was made with Python 3.9.6, older than 3.10.")
    assert "brew install python@3.13" in made.stderr
    assert (venv / ".installed").exists() and answer(venv, linux) == "3 9 3.9.6 x86_64"


def test_an_x86_64_venv_on_apple_silicon_is_rebuilt_with_an_arm64_python(mac: FakeSystem) -> None:
    venv = mac.venv(mac.python("python3.12", "3.12.4", machine="x86_64"))
    mac.python("python3.13", "3.13.1", machine="arm64")
    made = mac.run("venv", str(venv))
    assert made.returncode == 0, made.stderr
    assert "it was made with Python 3.12.4 for x86_64, which runs under Rosetta" in made.stdout
    assert answer(venv, mac) == "3 13 3.13.1 arm64"


def test_a_good_venv_is_kept_even_when_a_newer_python_appears(linux: FakeSystem) -> None:
    venv = linux.venv(linux.python("python3.11", "3.11.9"))
    linux.python("python3.13", "3.13.1")
    made = linux.run("venv", str(venv))
    assert made.returncode == 0 and made.stdout == "", made.stdout + made.stderr
    assert (venv / ".installed").exists() and answer(venv, linux) == "3 11 3.11.9 x86_64"


def test_a_venv_of_another_version_than_PYTHON_asks_for_is_rebuilt(linux: FakeSystem) -> None:
    venv = linux.venv(linux.python("python3.11", "3.11.9"))
    linux.python("python3.13", "3.13.1")
    assert linux.run("venv", str(venv), python="python3.11").stdout == ""
    made = linux.run("venv", str(venv), python="python3.13")
    assert made.returncode == 0, made.stderr
    why = "it was made with Python 3.11.9 (x86_64), and PYTHON=python3.13 is Python 3.13.1 (x86_64)"
    assert why in made.stdout
    assert answer(venv, linux) == "3 13 3.13.1 x86_64"


def test_a_folder_that_is_not_a_venv_is_left_alone(linux: FakeSystem) -> None:
    folder = linux.root / "venv"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    linux.python("python3.12", "3.12.4")
    made = linux.run("venv", str(folder))
    assert made.returncode != 0 and "is not a virtual environment" in made.stderr
    assert (folder / "notes.txt").read_text() == "mine"


# Through the Makefile, with the real interpreter.

@pytest.mark.slow
def test_make_venv_builds_with_a_newer_python_when_python3_is_3_9(linux: FakeSystem) -> None:
    linux.python("python3", "3.9.6")
    minor = f"python3.{sys.version_info.minor}"
    linux.real_python(minor)
    venv = linux.root / ".venv"
    made = linux.make("venv", venv)
    assert made.returncode == 0, made.stdout + made.stderr
    assert f"Creating {venv} with {linux.bin / minor}" in made.stdout
    real = subprocess.run([str(venv / "bin" / "python"), "-c", "import sys; print(sys.prefix)"],
                          capture_output=True, text=True, check=True)
    assert Path(real.stdout.strip()) == venv
    again = linux.make("venv", venv)
    assert again.returncode == 0 and "Creating" not in again.stdout, "a good environment is reused"


def test_make_setup_stops_before_installing_anything_when_python3_is_3_9(linux: FakeSystem) -> None:
    linux.python("python3", "3.9.6")
    venv = linux.root / ".venv"
    made = linux.make("setup", venv)
    assert made.returncode != 0
    assert "Python 3.9.6, older than 3.10" in made.stderr and "brew install python@3.13" in made.stderr
    assert "pip" not in made.stdout and not venv.exists()
    explicit = linux.make("setup", venv, python="python3")
    assert explicit.returncode != 0 and "PYTHON=python3" in explicit.stderr
