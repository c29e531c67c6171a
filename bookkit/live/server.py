"""`make live`: the built book and a Jupyter server for its live cells, on this machine only.

    python -m bookkit.live.server [--port 8000] [--live-port 8899]

Both servers listen on 127.0.0.1 only. The Jupyter server gets a fresh random
token each time (through the environment, so it shows in no process list) and
accepts cross-origin requests and websockets from the book's exact origin,
http://127.0.0.1:<port>, and no other. The one URL to open is printed with the
token in its fragment (`#live=<live port>&token=...`): a fragment is never sent
to the book's server, and the page moves it into sessionStorage at once
(bookkit/live/live.js). Nothing writes the token to a file in the repository;
Jupyter's own runtime files go to a temporary folder removed on exit.

The kernel is this virtual environment's Python (the server's own interpreter),
and the server's root is the repository, so a chapter's kernel starts in
`book/` and imports `mlx_autodiff` exactly as the build did.

Jupyter skips its origin check for any request that carries the token
(`IdentityProvider.should_check_origin`, jupyter_server 2.x), so a page elsewhere
that got hold of the token could open a kernel's websocket. `BookOriginOnly`
checks the origin of every request that names one: only the book's page may
talk to the kernels from a browser.

Ctrl-C (or SIGTERM, or closing the terminal) stops both servers and the kernels;
nothing is left running.

A closed tab's kernel is shut down within seconds, not at the idle cull: this module
is also a small extension of the Jupyter server (`ClosedTab`, POST /tds/tab) that a
page calls as it leaves (bookkit/live/live-tabs.js). A reload cannot be told from a close
when the page leaves, so the kernel goes CLOSED_TAB_S later, unless the next page of
the tab says it is still wanted or anything is connected to it by then.

`make serve-kernel` starts the kernel server alone, for readers on other machines:

    python -m bookkit.live.server --serve-kernel --host 192.168.1.20 --book-origin https://example.org

It listens on the address the person chooses (a LAN address of this machine), with
the same rules: a fresh token, and only the book's origin (`--book-origin`, the
scheme, host and port the book's pages are served from) may use it. It prints the
fragment a reader adds to any page of the book, `#server=http://<host>:<port>&token=...`
(or the two values for the page's form). A page on https reaches only an https server
(browsers block "mixed content"), so over a network this is for a book served over
http on the same network; a JupyterHub serves https (appendix 2).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import ipaddress
import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from jupyter_server.auth.identity import PasswordIdentityProvider
from jupyter_server.base.handlers import APIHandler
from tornado import web
from tornado.ioloop import IOLoop

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "_build" / "html"
HOST = "127.0.0.1"
START_TIMEOUT_S = 60
STOP_TIMEOUT_S = 10
# A kernel whose tab went without a word (the browser crashed): the server shuts it down after this long idle
# with nothing connected. A closed tab's kernel goes much sooner (ClosedTab).
IDLE_KERNEL_S = 600
DEAD_KERNEL_POLL_S = 1.0
# A tab that left: its kernel goes this long after, unless the tab's next page (a reload) wants it again.
CLOSED_TAB_S = 10


class BookOriginOnly(PasswordIdentityProvider):
    """Jupyter's token check, plus the origin check for token-bearing requests and websockets too."""

    def should_check_origin(self, handler: object) -> bool:
        return True


class ClosedTab(APIHandler):
    """POST /tds/tab {kernel, keep}: a page of the book leaves (`keep` false) or comes back (true) in the
    tab that owns `kernel`; CLOSED_TAB_S after the last leave with nothing connected, it is shut down
    with its session. Token and origin are checked as for Jupyter's own API."""

    @web.authenticated
    async def post(self) -> None:
        try:
            asked = json.loads(self.request.body or b"{}")
            kernel, keep = str(asked["kernel"]), bool(asked.get("keep"))
        except (ValueError, KeyError, TypeError) as error:
            raise web.HTTPError(400, "expected {kernel, keep}") from error
        pending = self.settings.setdefault("tds_closed_tabs", {})
        if kernel in pending:
            IOLoop.current().remove_timeout(pending.pop(kernel))
        if not keep and kernel in self.kernel_manager:
            pending[kernel] = IOLoop.current().call_later(
                CLOSED_TAB_S, lambda: asyncio.ensure_future(self.shut_down_if_unused(kernel)))
        self.set_status(204)
        self.finish()

    async def shut_down_if_unused(self, kernel: str) -> None:
        self.settings.get("tds_closed_tabs", {}).pop(kernel, None)
        if kernel not in self.kernel_manager or self.kernel_manager.kernel_model(kernel)["connections"]:
            return
        for session in await self.session_manager.list_sessions():
            if session["kernel"]["id"] == kernel:
                await self.session_manager.delete_session(session["id"])  # its kernel with it
                return
        await self.kernel_manager.shutdown_kernel(kernel)


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "bookkit.live.server"}]


def _load_jupyter_server_extension(serverapp: object) -> None:
    """Jupyter loads this module as an extension (`jupyter_command`): the route of `ClosedTab`."""
    web_app = serverapp.web_app  # type: ignore[attr-defined]
    base = web_app.settings["base_url"].rstrip("/")
    web_app.add_handlers(".*$", [(f"{base}/tds/tab", ClosedTab)])


class LiveServerError(RuntimeError):
    """One of the two servers could not start; the message says why and what to do."""


@dataclass(frozen=True)
class LiveServers:
    """What a running `make live` offers: the book's origin, the kernel server, and the URL to open."""

    book: str
    kernels: str
    token: str
    live_port: int
    edition: str  # the built edition the URL opens ("en" unless only another one was built)
    others: tuple[str, ...] = ()  # the other built editions, each with a URL of its own (`url_of`)

    @property
    def url(self) -> str:
        return self.url_of(self.edition)

    def url_of(self, edition: str) -> str:
        return f"{self.book}/{edition}/book/index.html#live={self.live_port}&token={self.token}"


def built_editions(html: Path) -> list[str]:
    """The languages of the book (English first) whose edition is built in `html`."""
    # imported here: the Jupyter server imports this module for BookOriginOnly, and
    # bookkit.site.book_languages brings Sphinx and myst-nb with it
    from bookkit.words.language import LANGUAGES

    built = [code for code in LANGUAGES if (html / code / "book" / "index.html").exists()]
    if not built:
        raise LiveServerError(f"no built edition in {html} (looked for {', '.join(LANGUAGES)}): "
                              "run `make build-book` first (`make live` does).")
    return built


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the base class's name)
        """One line per request would bury the URL to open."""


def book_server(port: int, html: Path) -> ThreadingHTTPServer:
    try:
        return ThreadingHTTPServer((HOST, port), functools.partial(QuietHandler, directory=str(html)))
    except OSError as error:
        raise LiveServerError(f"cannot serve the book on {HOST}:{port} ({error.strerror}): another server "
                              f"(`make book`, `make live`?) may hold it; stop it or use `make live PORT=8001`"
                              ) from error


def jupyter_command(live_port: int, book_origin: str, host: str = HOST) -> list[str]:
    """The Jupyter server's command line: on `host` (this machine only by default), the book's origin only."""
    command = [
        sys.executable, "-m", "jupyter_server",
        f"--ServerApp.ip={host}",
        f"--ServerApp.port={live_port}",
        "--ServerApp.port_retries=0",  # a taken port is an error, not a silent move elsewhere
        "--ServerApp.open_browser=False",
        f"--ServerApp.root_dir={ROOT}",
        f"--ServerApp.allow_origin={book_origin}",
        "--ServerApp.identity_provider_class=bookkit.live.server.BookOriginOnly",
        f"--ServerApp.allow_remote_access={not ipaddress.ip_address(host).is_loopback}",
        "--ServerApp.terminals_enabled=False",
        # only kernels for the pages, "Run check"'s grader (bookkit/workbook/server.py) and this module's
        # closed-tab route: no JupyterLab, LSP or terminals behind the kernel port
        "--ServerApp.jpserver_extensions={'jupyterlab': False, 'jupyter_lsp': False, "
        "'jupyter_server_terminals': False, 'notebook_shim': False, 'jupytext': False, "
        "'jupyterlab_myst': False, 'bookkit.workbook.server': True, 'bookkit.live.server': True}",
        f"--MappingKernelManager.cull_idle_timeout={IDLE_KERNEL_S}",
        "--MappingKernelManager.cull_interval=60",
        # how often Jupyter looks for a dead kernel to restart (default 3 s): the page says so sooner
        f"--KernelRestarter.time_to_dead={DEAD_KERNEL_POLL_S}",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--ServerApp.allow_root=True")  # CI runs as root
    return command


def wait_until_up(kernels: str, token: str, process: subprocess.Popen[bytes], log: Path) -> None:
    """Return once the server answers an authenticated request; raise if it exits or takes too long."""
    deadline = time.monotonic() + START_TIMEOUT_S
    request = urllib.request.Request(f"{kernels}/api/status", headers={"Authorization": f"token {token}"})
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = "\n".join(log.read_text(errors="replace").splitlines()[-15:])
            raise LiveServerError(f"the Jupyter server exited with status {process.returncode}:\n{tail}\n"
                                  "If the port is taken, choose another: `make live LIVE_PORT=8900`.")
        try:
            with urllib.request.urlopen(request, timeout=2):
                return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.2)
    raise LiveServerError(f"the Jupyter server did not answer on {kernels} within {START_TIMEOUT_S} s")


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM lets Jupyter shut its kernels down; SIGKILL only if it does not finish in time."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def kernel_server(host: str, live_port: int, book_origin: str, token: str) -> Iterator[str]:
    """The Jupyter server on `host`:`live_port` for pages from `book_origin`, until the block ends."""
    with tempfile.TemporaryDirectory(prefix="live-jupyter-") as scratch:
        scratch_path = Path(scratch)
        env = os.environ | {
            "JUPYTER_TOKEN": token,
            # Jupyter's runtime files (which hold the token) and any user-level kernel specs stay out:
            # the kernel is this environment's own python3.
            "JUPYTER_RUNTIME_DIR": str(scratch_path / "runtime"),
            "JUPYTER_DATA_DIR": str(scratch_path / "data"),
            "JUPYTER_CONFIG_DIR": str(scratch_path / "config"),
            "PYTHONUNBUFFERED": "1",
        }
        log_path = scratch_path / "jupyter.log"
        with open(log_path, "wb") as log:
            # its own session: a Ctrl-C in the terminal reaches this script, which stops it cleanly
            # (Jupyter itself would stop to ask "Shutdown this Jupyter server (y/[n])?")
            process = subprocess.Popen(jupyter_command(live_port, book_origin, host), cwd=ROOT, env=env,
                                       stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                       start_new_session=True)
        url = f"http://{host}:{live_port}"
        try:
            wait_until_up(url, token, process, log_path)
            yield url
        finally:
            stop(process)


@contextmanager
def live_servers(port: int, live_port: int, html: Path = HTML) -> Iterator[LiveServers]:
    """Both servers running until the block ends (however it ends); then both are stopped."""
    if not (html / "index.html").exists():
        raise LiveServerError(f"no built book in {html}: run `make build-book` first (`make live` does).")
    edition, *others = built_editions(html)
    httpd = book_server(port, html)
    origin = f"http://{HOST}:{httpd.server_address[1]}"
    token = secrets.token_urlsafe(32)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    try:
        with kernel_server(HOST, live_port, origin, token) as kernels:
            thread.start()
            yield LiveServers(origin, kernels, token, live_port, edition, tuple(others))
    finally:
        if thread.is_alive():
            httpd.shutdown()
            thread.join()
        httpd.server_close()


def origin_of(url: str) -> str:
    """`url`'s origin (scheme://host[:port]), as a browser sends it; LiveServerError if it has none."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/"):
        raise LiveServerError(f"--book-origin {url!r} is not an origin: give the scheme, host and port the "
                              "book's pages come from, e.g. http://192.168.1.20:8000 or https://example.org")
    return f"{parts.scheme}://{parts.netloc}"


def serve_kernel(host: str, live_port: int, book_origin: str, stopping: threading.Event) -> None:
    """`make serve-kernel`: the kernel server alone on `host`, for the book's pages at `book_origin`."""
    try:
        ipaddress.ip_address(host)
    except ValueError as error:
        raise LiveServerError(f"--host {host!r} is not an IP address: give one of this machine's addresses "
                              "(`make serve-kernel KERNEL_HOST=192.168.1.20`)") from error
    origin, token = origin_of(book_origin), secrets.token_urlsafe(32)
    with kernel_server(host, live_port, origin, token) as kernels:
        print(f"Kernels: {kernels}  (Jupyter Server; accepts pages from {origin} only)\n\n"
              "A reader adds this to the address of any page of the book (keep it to the people you "
              f"mean; anyone with it runs code on this machine):\n\n    #server={kernels}&token={token}\n\n"
              f"or types the server URL {kernels} and the token into the page's form. Ctrl-C stops it.",
              flush=True)
        stopping.wait()
        print("\nStopping the Jupyter server and its kernels...", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bookkit.live.server",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8000, help="the book's port (default 8000)")
    parser.add_argument("--live-port", type=int, default=8899, help="the kernel server's port (default 8899)")
    parser.add_argument("--serve-kernel", action="store_true",
                        help="only the kernel server, on --host, for the book's pages at --book-origin")
    parser.add_argument("--host", default="", help="with --serve-kernel: the address to listen on")
    parser.add_argument("--book-origin", default="",
                        help="with --serve-kernel: the origin of the book's pages")
    args = parser.parse_args(argv)
    stopping = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, lambda *_: stopping.set())
    try:
        if args.serve_kernel:
            if not args.host or not args.book_origin:
                raise LiveServerError("serve-kernel needs the address to listen on and the book's origin: "
                                      "`make serve-kernel KERNEL_HOST=192.168.1.20 BOOK_ORIGIN=http://192.168.1.20:8000`")
            serve_kernel(args.host, args.live_port, args.book_origin, stopping)
            print("Stopped.")
            return 0
        with live_servers(args.port, args.live_port) as servers:
            from bookkit.words.language import LANGUAGES

            others = "".join(f"The {LANGUAGES[code].name} edition ({code}), with the same token:\n\n"
                             f"    {servers.url_of(code)}\n\n" for code in servers.others)
            print(f"Book:    {servers.book}  (this machine only)\n"
                  f"Kernels: {servers.kernels}  (Jupyter Server; accepts pages from {servers.book} only)\n\n"
                  f"Open this URL ({LANGUAGES[servers.edition].name}); it carries a fresh token, so keep it "
                  f"to yourself:\n\n    {servers.url}\n\n{others}"
                  "Then press \"Run live\" on any chapter. Ctrl-C stops both servers.", flush=True)
            stopping.wait()
            print("\nStopping the book server, the Jupyter server and its kernels...", flush=True)
    except LiveServerError as error:
        print(f"make live: {error}", file=sys.stderr)
        return 1
    print("Stopped.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
