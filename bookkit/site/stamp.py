"""An unchanged edition is not built again: what its last successful build read, kept as one hash.

A strict build reads every page again (bookkit/site/build.py says why): about 20 s an edition on
2 cores even when nothing changed. An edition's build reads the repository's files, the installed
packages, the Python that runs it, the editions the site has and two environment variables
(bookkit/site/layout.py). When all of them hash as they did at the edition's last successful build,
and the HTML that build wrote is still there, a build would write the same site again
(tests/site/test_book_determinism.py holds the build to that), so it is skipped, as `make` skips a target
that is newer than its sources. `python -m bookkit.site.build --force` builds anyway.

The repository's files are the ones git lists (tracked, or new and not ignored), except tests/,
which no page reads; without git (a downloaded archive) the files cannot be told from the build's
outputs, and every build runs. `_live/`, which the site copies (`html_extra_path`) but git ignores,
counts by its install mark.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from bookkit.site.layout import BASEURL_VARIABLE, REPOSITORY_VARIABLE

NOT_READ = ("tests/",)
"""Repository folders no page reads: editing them builds nothing."""


def repository_files(root: Path) -> list[str] | None:
    """The repository's files as git lists them (tracked, or new and not ignored); None without git."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                                cwd=root, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    names = {name for name in listed.decode("utf8", "surrogateescape").split("\0") if name}
    return sorted(name for name in names if not name.startswith(NOT_READ) and (root / name).is_file())


def shared_digest(root: Path) -> str | None:
    """One hash of what every edition's build reads (the module's docstring lists it); None when the
    repository's files cannot be listed."""
    files = repository_files(root)
    if files is None:
        return None
    digest = hashlib.sha256()
    for name in files:
        digest.update(name.encode("utf8", "surrogateescape") + b"\0")
        digest.update(hashlib.sha256((root / name).read_bytes()).digest())
    live = root / "_live" / ".installed"
    digest.update(str(live.stat().st_mtime_ns if live.exists() else None).encode())
    packages = sorted(f"{dist.metadata['Name']}=={dist.version}" for dist in metadata.distributions())
    environment = {name: os.environ.get(name, "") for name in (BASEURL_VARIABLE, REPOSITORY_VARIABLE)}
    said = {"python": sys.version, "executable": sys.executable, "packages": packages,
            "environment": environment}
    digest.update(json.dumps(said, sort_keys=True).encode())
    return digest.hexdigest()


def edition_digest(shared: str | None, language: str, site: list[str]) -> str | None:
    """What one edition's build reads: `shared_digest`, its language and the site's editions."""
    if shared is None:
        return None
    said = json.dumps({"shared": shared, "language": language, "site": site}, sort_keys=True)
    return hashlib.sha256(said.encode()).hexdigest()


def inputs_digest(root: Path, language: str, site: list[str]) -> str | None:
    """`edition_digest` of the repository as it is now (a build of several editions hashes the
    repository once: `shared_digest`)."""
    return edition_digest(shared_digest(root), language, site)


def _stamp(root: Path, language: str) -> Path:
    return root / "_build" / ".doctrees" / language / "built-from.json"


def _written(root: Path, language: str) -> int | None:
    """When Sphinx last finished writing the edition's HTML (it writes `.buildinfo` last), or None."""
    info = root / "_build" / "html" / language / ".buildinfo"
    return info.stat().st_mtime_ns if info.exists() else None


def unchanged(root: Path, language: str, inputs: str | None) -> bool:
    """True when the edition's last successful build read `inputs` (its `edition_digest` now), and
    wrote the HTML that is there."""
    try:
        kept = json.loads(_stamp(root, language).read_text(encoding="utf8"))
    except (OSError, ValueError):
        return False
    written = _written(root, language)
    return inputs is not None and written is not None and kept == {"inputs": inputs, "html": written}


def record(root: Path, language: str, inputs: str | None) -> None:
    """After a successful build of the edition: `inputs`, its `edition_digest` taken before the build
    began (a file edited during the build then builds again), and when its HTML was written."""
    written = _written(root, language)
    stamp = _stamp(root, language)
    if inputs is None or written is None:
        stamp.unlink(missing_ok=True)
        return
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(json.dumps({"inputs": inputs, "html": written}), encoding="utf8")


def forget(root: Path, language: str) -> None:
    """Before a build of the edition: until it ends cleanly, nothing is known to be up to date."""
    _stamp(root, language).unlink(missing_ok=True)
