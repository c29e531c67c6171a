"""Build the book strictly, re-executing chapters when the engine changed.

myst-nb's execution cache (jupyter-cache) keys a chapter on its own code cells
only (MyST-NB issue #299), so a change to `mlx_autodiff` would leave stale
outputs in the book. This script keys the whole cache on a hash of the engine's
sources and the requirements: when that hash changes, the cache is cleared and
every chapter runs again; when nothing changed, the build reuses it.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "_build"
CACHE = BUILD / ".jupyter_cache"
KEY_FILE = BUILD / ".engine-key"


def engine_key() -> str:
    """A hash of everything besides a chapter's own cells that its outputs depend on."""
    digest = hashlib.sha256()
    files = sorted((ROOT / "mlx_autodiff").rglob("*.py")) + [ROOT / "requirements.txt"]
    for path in files:
        digest.update(path.relative_to(ROOT).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def refresh_cache() -> bool:
    """Clear the execution cache if the engine changed since it was filled. True if cleared."""
    key = engine_key()
    stale = not KEY_FILE.exists() or KEY_FILE.read_text() != key
    if stale and CACHE.exists():
        shutil.rmtree(CACHE)
    BUILD.mkdir(exist_ok=True)
    KEY_FILE.write_text(key)
    return stale


def build(extra: list[str] | None = None) -> int:
    """Run the strict Jupyter Book build; return its exit status."""
    cleared = refresh_cache()
    print(f"engine {'changed: every chapter re-executes' if cleared else 'unchanged: cached outputs reused'}")
    jupyter_book = Path(sys.executable).parent / "jupyter-book"
    command = [str(jupyter_book), "build", str(ROOT), "-n", "-W", "--keep-going"]
    if cleared:
        command.append("--all")  # Sphinx would otherwise keep pages whose sources did not change
    return subprocess.call(command + (extra or []), cwd=ROOT)


if __name__ == "__main__":
    sys.exit(build(sys.argv[1:]))
