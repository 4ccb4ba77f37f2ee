"""A private impact-server on a free loopback port for the length of a `with` block: the
binary from a given path, $IMPACT_SERVER, or PATH; it prints one line
`impact-server listening on ADDR` when ready (the server's contract with its clients)."""

import os
import shutil
import subprocess
import tempfile
import threading

from .client import Client, ImpactError

READY = "impact-server listening on "


class LocalServer:
    """with LocalServer("path/to/impact-server") as s: s.client().solve(model)

    Results go to a temporary data directory removed at exit, unless `data_dir` is given.
    """

    def __init__(self, binary=None, args=(), data_dir=None, start_timeout=60.0):
        self.binary = binary or os.environ.get("IMPACT_SERVER") or shutil.which("impact-server")
        if not self.binary:
            raise ImpactError(None, "no impact-server: pass its path, set IMPACT_SERVER, "
                                    "or put it on PATH")
        self.args = list(args)
        self.data_dir = data_dir
        self.start_timeout = start_timeout
        self.process = None
        self.url = None
        self._tmp = None

    def __enter__(self):
        if self.data_dir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="impact-")
            self.data_dir = self._tmp.name
        self.process = subprocess.Popen(
            [self.binary, "--listen", "127.0.0.1:0", "--data-dir", str(self.data_dir)]
            + self.args,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True,
        )
        line = self._ready_line()
        if not line.startswith(READY):
            err = self.process.stderr.read() if self.process.poll() is not None else ""
            self.__exit__(None, None, None)
            raise ImpactError(None, f"impact-server did not start: {line!r} {err}")
        self.url = "http://" + line[len(READY):].strip()
        # Keep reading stderr so the server never blocks on a full pipe.
        threading.Thread(target=self.process.stderr.read, daemon=True).start()
        return self

    def _ready_line(self):
        out = {}
        reader = threading.Thread(target=lambda: out.update(line=self.process.stdout.readline()),
                                  daemon=True)
        reader.start()
        reader.join(self.start_timeout)
        return out.get("line", "")

    def client(self, token=None):
        return Client(self.url, token=token)

    def __exit__(self, *exc):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None
        return False
