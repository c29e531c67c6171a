"""bookkit/bench/chromium.py finds Chromium where a Mac or a Linux machine keeps it (no browser started)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bookkit.bench.chromium import MAC_APPS, ChromiumNotFound, find_chromium, mac_applications, skip_reason


def executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


def test_CHROMIUM_wins_over_PATH(tmp_path: Path) -> None:
    on_path = executable(tmp_path / "bin" / "chromium")
    chosen = executable(tmp_path / "elsewhere" / "chrome")
    environ = {"PATH": str(on_path.parent), "CHROMIUM": str(chosen)}
    assert find_chromium(environ, platform="linux") == str(chosen)
    assert find_chromium(environ | {"CHROMIUM": "chromium"}, platform="linux") == str(on_path)


def test_a_CHROMIUM_that_names_nothing_fails_instead_of_skipping(tmp_path: Path) -> None:
    with pytest.raises(ChromiumNotFound, match="CHROMIUM='/no/such/chrome'"):
        find_chromium({"PATH": str(tmp_path), "CHROMIUM": "/no/such/chrome"}, platform="linux")


@pytest.mark.parametrize("name", ["chromium", "chromium-browser"])
def test_either_debian_or_ubuntu_name_on_PATH(tmp_path: Path, name: str) -> None:
    found = executable(tmp_path / name)
    assert find_chromium({"PATH": str(tmp_path)}, platform="linux") == str(found)


@pytest.mark.parametrize("app", ["Google Chrome.app/Contents/MacOS/Google Chrome",
                                 "Chromium.app/Contents/MacOS/Chromium"])
def test_a_mac_app_in_Applications_is_found_on_macos_only(tmp_path: Path, app: str) -> None:
    home = tmp_path / "home"
    places = [place for place in mac_applications(home) if place.is_relative_to(home)]
    assert [place.relative_to(home / "Applications").as_posix() for place in places] == list(MAC_APPS)
    assert Path("/Applications", app) in mac_applications(home)
    found = executable(home / "Applications" / app)
    environ = {"PATH": str(tmp_path / "empty"), "HOME": str(home)}
    assert find_chromium(environ, platform="darwin", applications=places) == str(found)
    assert find_chromium(environ, platform="linux", applications=places) is None


def test_the_skip_reason_names_the_mac_options_and_the_variable() -> None:
    reason = skip_reason()
    for option in ("CHROMIUM=", "Google Chrome", "/Applications", "brew install --cask chromium",
                   "apt-get install chromium", "chromium-browser"):
        assert option in reason, f"{option!r} missing from: {reason}"
