"""Where the browser tests and `make bench` find Chromium: one place, so every run looks in the same ones.

In order: the `CHROMIUM` environment variable (a path or a command name), `chromium` and
`chromium-browser` on PATH, then Google Chrome or Chromium in /Applications (or ~/Applications) on
macOS. `.ci/run` looks in the same places and exports `CHROMIUM` with what it found.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

COMMANDS = ("chromium", "chromium-browser")
MAC_APPS = ("Google Chrome.app/Contents/MacOS/Google Chrome", "Chromium.app/Contents/MacOS/Chromium")
HOW_TO_GET_ONE = (
    "set CHROMIUM=/path/to/chromium, or install one: on macOS Google Chrome (into /Applications) or "
    "`brew install --cask chromium`; on Debian or Ubuntu `apt-get install chromium`"
)


class ChromiumNotFound(LookupError):
    """`CHROMIUM` names nothing that runs: a typo should fail loudly, not skip every browser test."""


def mac_applications(home: Path | None = None) -> list[Path]:
    """The places a Mac keeps Chrome or Chromium: /Applications, then the user's ~/Applications."""
    folders = [Path("/Applications"), (home or Path.home()) / "Applications"]
    return [folder / app for folder in folders for app in MAC_APPS]


def find_chromium(environ: dict[str, str] | None = None, platform: str = sys.platform,
                  applications: list[Path] | None = None) -> str | None:
    """The Chromium to drive, or None when there is none; raises ChromiumNotFound for a bad `CHROMIUM`.

    `applications` replaces `mac_applications()` (for tests on a Mac that has Chrome installed).
    """
    environ = os.environ if environ is None else environ
    chosen = environ.get("CHROMIUM", "")
    if chosen:
        found = shutil.which(chosen, path=environ.get("PATH"))
        if found is None:
            raise ChromiumNotFound(f"CHROMIUM={chosen!r} is not an executable file or a command on PATH; "
                                   f"point it at Chrome or Chromium, or unset it")
        return found
    for name in COMMANDS:
        if found := shutil.which(name, path=environ.get("PATH")):
            return found
    if platform == "darwin":
        home = Path(environ["HOME"]) if "HOME" in environ else None
        for app in mac_applications(home) if applications is None else applications:
            if os.access(app, os.X_OK):
                return str(app)
    return None


def skip_reason() -> str:
    where = ", ".join(f"`{name}` on PATH" for name in COMMANDS)
    return f"no Chromium ({where}, or Chrome/Chromium in /Applications on macOS): {HOW_TO_GET_ONE}"
