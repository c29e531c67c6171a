"""What a reader of the built site sees, as text: to compare two builds before and after a refactoring.

    python -m tools.visible_text _build/html _build/visible-before  # write one .txt per page and notebook
    python -m tools.visible_text --compare _build/visible-before _build/visible-after

For every page of every edition (`_build/html/<edition>/**.html`) it writes the page's text as a
reader meets it: the text of `<body>` outside scripts and styles, the words a reader meets in
attributes (`alt`, `title`, `aria-label`, `placeholder`, a button's `value`), every inline SVG as
markup (the pictures), the JSON data the page scripts show (`<script type="application/json">`),
and each image as a hash of its bytes. Beside the pages, the notebooks a reader downloads
(`exercises/`, `notebooks/`) as their cells' text, and the data files the pages' scripts fetch
(`*.json` and `*.svg` under the edition, outside `_static/`). Asset paths are the one thing
normalised, with parameters' random ids: a link or source into `_static/`, `_images/`, `_thebe/`
or `_mathjax/` keeps only its file name, and Sphinx's content hash in a file name
(`mystnb.<hash>.css`) is dropped.
`--compare` prints the files that differ (a unified diff of each, cut short) and exits 1 if any do.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

SKIPPED = {"script", "style", "noscript"}
READ_ATTRIBUTES = ("alt", "title", "aria-label", "placeholder", "value", "data-tooltip")
ASSET = re.compile(r"(?:\.\./)*(?:[\w.-]+/)*(?:_static|_images|_thebe|_mathjax)/(?:[\w.@-]+/)*([\w.@-]+)")
HASHED = re.compile(r"\.[0-9a-f]{32,64}(\.(?:css|js))")
PARAM_ID = re.compile(r"ParamId\([0-9a-f]{16}\)")
"""A parameter's id is random in every process (as Burn's u64 is), so two builds never print the same one."""
SKIPPED_FOLDERS = {"_static", "_sources", "_images", "_thebe", "_mathjax", ".doctrees"}
SKIPPED_PAGES = {"genindex.html", "search.html"}


def normalised(text: str) -> str:
    return PARAM_ID.sub("ParamId(…)", HASHED.sub(r"\1", ASSET.sub(r"ASSET/\1", text)))


class Visible(HTMLParser):
    """Collects a page's visible text, its readable attributes, inline SVG markup and JSON data."""

    def __init__(self, images: Path) -> None:
        super().__init__(convert_charrefs=True)
        self.images = images
        self.out: list[str] = []
        self.skip: list[str] = []  # the open skipped elements
        self.svg_depth = 0
        self.json: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "script" and found.get("type") == "application/json":
            self.json = ""
        if tag in SKIPPED:
            self.skip.append(tag)
            return
        if tag == "svg" or self.svg_depth:
            self.svg_depth += 1
            listed = " ".join(f'{k}="{v}"' for k, v in attrs)
            self.out.append(f"<{tag} {listed}>")
            return
        for name in READ_ATTRIBUTES:
            if found.get(name):
                self.out.append(f"[{tag}@{name}: {found[name]}]")
        if tag == "img" and found.get("src"):
            self.out.append(f"[img {self.image(found['src'])}]")
        if tag in ("p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "pre", "section", "table"):
            self.out.append("\n")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.svg_depth:
            listed = " ".join(f'{k}="{v}"' for k, v in attrs)
            self.out.append(f"<{tag} {listed}/>")
            return
        self.handle_starttag(tag, attrs)
        if tag in SKIPPED:
            self.skip.pop()

    def handle_endtag(self, tag: str) -> None:
        if self.skip and self.skip[-1] == tag:
            self.skip.pop()
            if tag == "script" and self.json is not None:
                self.out.append(f"\n[json: {self.json.strip()}]\n")
                self.json = None
            return
        if self.svg_depth:
            self.out.append(f"</{tag}>")
            self.svg_depth -= 1

    def handle_data(self, data: str) -> None:
        if self.skip:
            if self.json is not None:
                self.json += data
            return
        self.out.append(data)

    def image(self, src: str) -> str:
        path = (self.images / src.split("#")[0].split("?")[0])
        if src.startswith("data:"):
            return "inline " + hashlib.sha256(src.encode()).hexdigest()[:16]
        if path.is_file():
            return f"{path.suffix} {hashlib.sha256(path.read_bytes()).hexdigest()[:16]}"
        return f"missing {normalised(src)}"


def page_text(path: Path) -> str:
    parser = Visible(path.parent)
    parser.feed(path.read_text(encoding="utf-8"))
    text = "".join(parser.out)
    lines = [" ".join(line.split()) for line in text.splitlines()]
    return normalised("\n".join(line for line in lines if line)) + "\n"


def notebook_text(path: Path) -> str:
    notebook = json.loads(path.read_text(encoding="utf-8"))
    cells = [f"--- {cell['cell_type']} {json.dumps(cell.get('metadata', {}), sort_keys=True)}\n"
             + "".join(cell["source"]) for cell in notebook.get("cells", [])]
    return normalised("\n".join(cells)) + "\n"


def collect(site: Path, out: Path) -> int:
    count = 0
    for path in sorted(site.rglob("*")):
        relative = path.relative_to(site)
        if not path.is_file() or SKIPPED_FOLDERS & set(relative.parts) or relative.name in SKIPPED_PAGES:
            continue
        if path.suffix == ".html":
            text = page_text(path)
        elif path.suffix == ".ipynb":
            text = notebook_text(path)
        elif path.suffix in (".json", ".svg"):
            text = normalised(path.read_text(encoding="utf-8"))
        elif path.suffix in (".png", ".jpg"):
            text = hashlib.sha256(path.read_bytes()).hexdigest() + "\n"
        else:
            continue
        target = out / (relative.as_posix() + ".txt")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        count += 1
    return count


def compare(before: Path, after: Path, context: int = 60) -> int:
    names = {p.relative_to(before) for p in before.rglob("*.txt")}
    names |= {p.relative_to(after) for p in after.rglob("*.txt")}
    differ = 0
    for name in sorted(names):
        a, b = before / name, after / name
        old = a.read_text(encoding="utf-8").splitlines() if a.exists() else []
        new = b.read_text(encoding="utf-8").splitlines() if b.exists() else []
        if old == new:
            continue
        differ += 1
        diff = list(difflib.unified_diff(old, new, str(a), str(b), lineterm="", n=0))
        print("\n".join(line[:400] for line in diff[:context]))
        if len(diff) > context:
            print(f"... {len(diff) - context} more lines")
    print(f"{len(names)} files, {differ} differ")
    return 1 if differ else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.visible_text",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("first", type=Path, help="the built site (_build/html), or a saved text (--compare)")
    parser.add_argument("second", type=Path, help="where to write the text, or the other text (--compare)")
    parser.add_argument("--compare", action="store_true", help="compare two saved texts")
    args = parser.parse_args(argv)
    if args.compare:
        return compare(args.first, args.second)
    print(f"{collect(args.first, args.second)} files written to {args.second}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
