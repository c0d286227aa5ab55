"""A headless Debian chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe:
commands on fd 3, replies and events on fd 4, NUL-terminated JSON), so the browser tests need no
websocket client and no Python package. The browser gets a proxy to nowhere: a page that fetched
anything would show it as a failed request in `requests`.
"""
from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

INSTALL_HINT = "chromium is not installed (apt-get install chromium; .ci/run installs it)"


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def require_chromium() -> str:
    path = chromium_path()
    if path is None:
        pytest.skip(INSTALL_HINT)
    return path


class CdpError(RuntimeError):
    pass


class Browser:
    """One chromium process with one page attached (flat session)."""

    def __init__(self, width: int = 1400, height: int = 900, timeout: float = 30.0) -> None:
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="hlotools-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        # the child must see them as fds 3 and 4: move them above 4 first, then dup2 into place
        hi_r, hi_w = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 5), fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 5)

        def child_fds() -> None:  # runs before close_fds, which keeps 3 and 4 (pass_fds)
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)

        args = [require_chromium(), "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>", "--no-first-run", "--disable-dev-shm-usage",
                "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--mute-audio", "--hide-scrollbars",
                f"--window-size={width},{height}", f"--user-data-dir={self.profile}", "about:blank"]
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=None if os.environ.get("HLOTOOLS_CHROMIUM_LOG") else subprocess.DEVNULL, pass_fds=(3, 4), preexec_fn=child_fds)
        for fd in {to_child_r, from_child_w, hi_r, hi_w}:
            os.close(fd)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict] = []
        self.session = self._attach()

    # -- protocol -------------------------------------------------------------------------
    def _send(self, method: str, params: dict | None, session: str | None) -> int:
        self._next_id += 1
        message: dict = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        return self._next_id

    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CdpError("chromium did not answer in time")
            ready, _, _ = select.select([self._from_child], [], [], left)
            if ready:
                chunk = os.read(self._from_child, 1 << 20)
                if not chunk:
                    raise CdpError("chromium closed the pipe")
                self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, params: dict | None = None, session: str | None | bool = True) -> dict:
        sid = self.session if session is True else (session or None)
        wanted = self._send(method, params, sid)
        deadline = time.monotonic() + self.timeout
        while True:
            message = self._read_message(deadline)
            if message.get("id") == wanted:
                if "error" in message:
                    raise CdpError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    def _attach(self) -> str:
        targets = self.call("Target.getTargets", session=False)["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        sid = self.call("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True}, session=False)
        self.session = sid["sessionId"]
        for domain in ("Runtime", "Log", "Page", "Network"):
            self.call(f"{domain}.enable")
        return self.session

    # -- what the tests use ------------------------------------------------------------------
    def open(self, path: Path, ready: str = "document.body && document.body.dataset.ready === '1'") -> float:
        """Loads a file:// URL and waits until `ready` is true; returns the seconds it took."""
        t0 = time.monotonic()
        self.call("Page.navigate", {"url": path.resolve().as_uri()})
        while not self.evaluate(f"!!({ready})"):
            if time.monotonic() - t0 > self.timeout:
                raise CdpError(f"{path.name}: the page did not get ready in {self.timeout} s; "
                               f"errors: {self.errors()}")
            time.sleep(0.05)
        return time.monotonic() - t0

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True})
        if "exceptionDetails" in result:
            raise CdpError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and failed loads seen so far."""
        out = []
        for e in self.events:
            m, p = e["method"], e.get("params", {})
            if m == "Runtime.exceptionThrown":
                out.append(json.dumps(p["exceptionDetails"])[:500])
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert", "warning"):
                out.append(" ".join(str(a.get("value", a.get("description"))) for a in p.get("args", [])))
            elif m == "Log.entryAdded" and p["entry"].get("level") in ("error", "warning"):
                out.append(p["entry"].get("text", ""))
            elif m == "Network.loadingFailed":
                out.append(f"load failed: {p.get('errorText')}")
        return out

    def requests(self) -> list[str]:
        return [e["params"]["request"]["url"] for e in self.events if e["method"] == "Network.requestWillBeSent"]

    def click(self, x: float, y: float, count: int = 1) -> None:
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": count})

    def wheel(self, x: float, y: float, delta_y: float) -> None:
        self.call("Input.dispatchMouseEvent", {"type": "mouseWheel", "x": x, "y": y, "deltaX": 0, "deltaY": delta_y})

    def drag(self, x0: float, y0: float, x1: float, y1: float) -> None:
        self.call("Input.dispatchMouseEvent", {"type": "mousePressed", "x": x0, "y": y0, "button": "left", "clickCount": 1})
        self.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x1, "y": y1, "button": "left", "buttons": 1})
        self.call("Input.dispatchMouseEvent", {"type": "mouseReleased", "x": x1, "y": y1, "button": "left", "clickCount": 1})

    def type_text(self, selector: str, text: str, enter: bool = False) -> None:
        self.evaluate(f"document.querySelector({selector!r}).focus(); 0")
        self.call("Input.insertText", {"text": text})
        if enter:
            for kind in ("keyDown", "keyUp"):
                self.call("Input.dispatchKeyEvent", {"type": kind, "key": "Enter", "code": "Enter",
                                                     "windowsVirtualKeyCode": 13})

    def screenshot(self) -> bytes:
        """The viewport as PNG (optimizeForSpeed: chromium then filters every row with Up, which
        png_pixels decodes with numpy at once)."""
        shot = self.call("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True})
        return base64.b64decode(shot["data"])

    def close(self) -> None:
        try:
            self._send("Browser.close", None, None)
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        finally:
            for fd in (self._to_child, self._from_child):
                try:
                    os.close(fd)
                except OSError:
                    pass
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def png_pixels(data: bytes):
    """An 8-bit RGB/RGBA non-interlaced PNG with None/Sub/Up row filters (what chromium writes with
    optimizeForSpeed) as a numpy (height, width, 3) array."""
    import struct
    import zlib

    import numpy as np

    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    assert header is not None
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, header
    channels = 3 if colour == 2 else 4
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), dtype=np.uint8).reshape(height, 1 + width * channels)
    out = np.zeros((height, width * channels), dtype=np.int64)
    prev = np.zeros(width * channels, dtype=np.int64)
    for y in range(height):
        kind, line = raw[y, 0], raw[y, 1:].astype(np.int64)
        if kind == 0:  # None
            cur = line
        elif kind == 1:  # Sub: a running sum along each channel
            cur = np.cumsum(line.reshape(width, channels), axis=0).reshape(-1) & 255
        elif kind == 2:  # Up
            cur = (line + prev) & 255
        else:
            raise AssertionError(f"PNG row filter {kind} (Average/Paeth): take the screenshot with optimizeForSpeed")
        out[y] = cur
        prev = cur
    return out.reshape(height, width, channels)[:, :, :3].astype(np.uint8)
