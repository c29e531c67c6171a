"""The checker's figures for `make bench`: the command on a 10,000-line crate, and a run on Burn's own code.

`crate_seconds` builds a crate from the test cases (tests/burn_check_cases/, copied until it has the
lines asked for) in a temporary folder and times the whole command on it, Python and node included.
`burn_run` checks the Rust of a Burn checkout that the reader names (BURN_SOURCE: a clone of
tracel-ai/burn, or its bare git folder): each example crate under examples/ as one crate, and each
```rust block of its book (burn-book/src) as one file, lines starting with `# ` shown, as rustdoc and
mdBook do. Nothing of Burn is copied into this repository; the result keeps only counts, the commit
and the findings' places.
"""

from __future__ import annotations

import json
import re
import resource
import statistics
import subprocess
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path
from typing import Any

from bookkit.burn_check import FOLDER
from bookkit.burn_check.command import command

ROOT = FOLDER.parents[1]
CASES = ROOT / "tests" / "burn_check_cases"
RUST_BLOCK = re.compile(r"```rust[^\n]*\n(.*?)```", re.S)


def build_crate(folder: Path, lines: int) -> tuple[int, int]:
    """Writes copies of the test cases into `folder/src` until they hold `lines` lines: (lines, files)."""
    cases = sorted(CASES.glob("*.rs"))
    written = files = 0
    while written < lines:
        for case in cases:
            text = case.read_text(encoding="utf-8")
            target = folder / "src" / f"copy{files // len(cases)}" / case.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            written += text.count("\n")
            files += 1
            if written >= lines:
                break
    return written, files


def crate_seconds(lines: int = 10_000, runs: int = 3) -> tuple[float, float, int, int]:
    """`burn-check --format json` on a crate of `lines` lines: the median wall-clock time, the median CPU
    time of its processes (what a busy machine does not inflate), the lines and the files."""
    with tempfile.TemporaryDirectory() as folder:
        written, files = build_crate(Path(folder), lines)
        times, cpu = [], []
        for _ in range(runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            result = subprocess.run(command(["--format", "json", folder]), capture_output=True, check=False)
            times.append(time.perf_counter() - started)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
            if result.returncode not in (0, 1):
                raise RuntimeError(f"burn-check failed on the generated crate: {result.stderr.decode()}")
    return statistics.median(times), statistics.median(cpu), written, files


def _tree(source: Path) -> tuple[str, bytes]:
    """The commit and a tar of examples/ and burn-book/ at HEAD of a Burn checkout or git folder."""
    git = ["git", "-C", str(source)]
    commit = subprocess.run([*git, "rev-parse", "--short=9", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    archive = subprocess.run([*git, "archive", "HEAD", "examples", "burn-book"], capture_output=True,
                             check=True)
    return commit, archive.stdout


def book_blocks(book: Path, into: Path) -> list[Path]:
    """Each ```rust block of the Burn book's pages as a file of its own, hidden lines (`# `) shown."""
    written = []
    for page in sorted(book.rglob("*.md")):
        for number, block in enumerate(RUST_BLOCK.findall(page.read_text(encoding="utf-8"))):
            lines = [line[2:] if line.startswith("# ") else "" if line == "#" else line
                     for line in block.split("\n")]
            name = page.relative_to(book).with_suffix("").as_posix().replace("/", "__")
            path = into / f"{name}__{number:02d}.rs"
            path.write_text("\n".join(lines), encoding="utf-8")
            written.append(path)
    return written


def burn_run(source: Path) -> dict[str, Any]:
    """burn-check on a Burn checkout's examples and book: counts, and every finding's place and rule."""
    commit, archive = _tree(source)
    with tempfile.TemporaryDirectory() as folder:
        tree = Path(folder)
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(tree, filter="data")
        crates = sorted(path for path in (tree / "examples").iterdir() if any(path.rglob("*.rs")))
        blocks = book_blocks(tree / "burn-book" / "src", tree)
        found: dict[str, Any] = {"commit": commit, "crates": len(crates), "blocks": len(blocks)}
        for part, paths in (("examples", crates), ("book", blocks)):
            result = subprocess.run(command(["--format", "json", *map(str, paths)]), capture_output=True,
                                    text=True, cwd=tree, check=False)
            report = json.loads(result.stdout)
            files = report["files"]
            found[part] = {
                "files": len(files),
                "lines": sum((tree / f["path"]).read_text(encoding="utf-8").count("\n") for f in files),
                "errors": [f"{f['path']}:{x['line']} {x['rule']}" for f in files for x in f["findings"]
                           if x["severity"] == "error"],
                "infos": [f"{f['path']}:{x['line']} {x['rule']}" for f in files for x in f["findings"]
                          if x["severity"] == "info"],
                "notices": sorted({n["kind"] for f in files for n in f["notices"]}),
                "unread": sum(1 for f in files if any(n["kind"] == "not-rust" for n in f["notices"])),
            }
    return found
