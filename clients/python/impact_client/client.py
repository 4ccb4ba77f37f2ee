"""JSON-RPC 2.0 over HTTP POST to an Impact server: one method per call, errors raised as
ImpactError with the server's code, message and data (the JSON pointer, job, element,
time). Each thread keeps one connection to the server alive across its calls: a fresh
connection per call took twice as long for a small call (docs/performance.md)."""

import http.client
import itertools
import json
import select
import socket
import threading
import time
import urllib.parse


class ImpactError(Exception):
    """A JSON-RPC error answered by the server (or a transport failure, code None)."""

    def __init__(self, code, message, data=None):
        super().__init__(f"{code}: {message}" if code is not None else message)
        self.code = code
        self.message = message
        self.data = data or {}

    @property
    def pointer(self):
        """The JSON pointer of the offending value, for bad input."""
        return self.data.get("pointer")


def _closed_by_peer(sock):
    """Whether an idle connection's socket has something to read: an answer is never
    pending between calls, so that is the server's end of the stream (or garbage), and
    the connection is not used again. A socket `select` cannot take (a descriptor past
    FD_SETSIZE) is taken as open; a call on a closed one fails and is raised."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (ValueError, OSError):
        return False
    return bool(readable)


class Client:
    """A client of one server, e.g. Client("http://127.0.0.1:7878", token="...")."""

    def __init__(self, url, token=None, timeout=600.0):
        self.url = url.rstrip("/") + "/"
        parts = urllib.parse.urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ImpactError(None, f"not an http:// or https:// address: {url}")
        self._https = parts.scheme == "https"
        self._host, self._port = parts.hostname, parts.port
        self._path = parts.path
        self.token = token
        self.timeout = timeout
        self._ids = itertools.count(1)
        self._local = threading.local()

    def close(self):
        """Close this thread's connection (the next call opens a new one)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def _connection(self, timeout):
        """This thread's connection, made anew when there is none or the server has closed
        it while it was idle (its socket then reads as the end of the stream)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None and conn.sock is not None and _closed_by_peer(conn.sock):
            conn.close()
            conn = None
        if conn is None:
            kind = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            conn = kind(self._host, self._port, timeout=timeout)
            self._local.conn = conn
        conn.timeout = timeout
        if conn.sock is not None:
            conn.sock.settimeout(timeout)
        return conn

    def _exchange(self, method, path, body, headers, timeout):
        """One HTTP request on this thread's connection: the status and the body. A
        failure closes the connection and is raised as ImpactError (code None); nothing is
        sent again, since the server may have acted on it."""
        conn = self._connection(timeout)
        try:
            conn.request(method, path, body, headers)
            response = conn.getresponse()
            data = response.read()
        except (socket.timeout, TimeoutError):  # one class from Python 3.10
            self.close()
            raise ImpactError(None, f"no answer from {self.url} within {timeout} s") from None
        except (OSError, http.client.HTTPException) as e:
            self.close()
            raise ImpactError(None, f"cannot reach {self.url}: {e}") from None
        return response.status, data

    def call(self, method, params=None, timeout=None):
        """Call one method; the result, or ImpactError."""
        request = {"jsonrpc": "2.0", "id": next(self._ids), "method": method}
        if params is not None:
            request["params"] = params
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        status, body = self._exchange(
            "POST", self._path, json.dumps(request).encode("utf-8"), headers,
            timeout or self.timeout,
        )
        text = body.decode("utf-8", "replace")
        try:
            answer = json.loads(text)
        except ValueError:
            raise ImpactError(None, f"HTTP {status}: {text}") from None
        if "error" in answer:
            err = answer["error"]
            raise ImpactError(err.get("code"), err.get("message", ""), err.get("data"))
        if status >= 400 or "result" not in answer:
            raise ImpactError(None, f"HTTP {status}: {text}")
        return answer["result"]

    # The solver.

    def solve(self, model):
        """Solve a model (the `model` object) and return the summary when done."""
        return self.call("solve", {"model": model})

    def submit(self, model):
        """Queue a model; the job id, at once."""
        return self.call("solve.submit", {"model": model})["job"]

    def probe(self, job, at=None, nodes=None, step=None, time=None, fields=None,
              particles=None):
        """Nodes nearest points `at` (or given node ids) at a step's end or a time."""
        params = {"job": job}
        for key, value in (("at", at), ("nodes", nodes), ("step", step), ("time", time),
                           ("fields", fields), ("particles", particles)):
            if value is not None:
                params[key] = value
        return self.call("solve.probe", params)

    def history(self, job, contacts=None, max_points=None):
        """A finished job's contact forces and energy terms against time."""
        params = {"job": job}
        if contacts is not None:
            params["contacts"] = contacts
        if max_points is not None:
            params["max_points"] = max_points
        return self.call("solve.history", params)

    def mesh(self, spec):
        """mesh.generate: e.g. {"kind": "block", "origin": [...], "size": [...], ...}."""
        return self.call("mesh.generate", spec)

    def import_mesh(self, format, text):
        """mesh.import: a Gmsh .msh 4.1 (`format` "gmsh") or Abaqus .inp ("abaqus") text
        as a mesh of the model's kind."""
        return self.call("mesh.import", {"format": format, "text": text})

    # Results to take elsewhere.

    def export(self, job, inline=False):
        """solve.export: the VTK files (ParaView) of a finished job, with their urls."""
        return self.call("solve.export", {"job": job, "inline": inline})

    def get(self, path):
        """GET a plain route of the server (an export file's url, say): the body."""
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        status, body = self._exchange(
            "GET", self._path.rstrip("/") + path, None, headers, self.timeout
        )
        if status >= 400:
            text = body.decode("utf-8", "replace")
            raise ImpactError(None, f"HTTP {status} for {path}: {text}")
        return body

    def download_export(self, job, directory):
        """Write every file of a job's export into `directory` (made if missing); the
        export's listing, as solve.export answers it."""
        import pathlib

        out = pathlib.Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        listing = self.export(job)
        for f in listing["files"]:
            (out / f["name"]).write_bytes(self.get(f["url"]))
        return listing

    # Jobs.

    def status(self, job):
        return self.call("job.status", {"job": job})

    def wait(self, job, timeout=None):
        """Wait for a job to end; its status (still running if `timeout` passed). Waits
        longer than the server's longest wait are made of several calls."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            params = {"job": job}
            if left is not None:
                params["timeout"] = left
            status = self.call("job.wait", params,
                               timeout=(left or 0) + self.timeout)
            if status["state"] in ("done", "failed"):
                return status
            if deadline is not None and time.monotonic() >= deadline:
                return status

    def result(self, job, timeout=None):
        """Wait for a job and return its summary, or raise its error."""
        status = self.wait(job, timeout)
        if status["state"] == "done":
            return status["summary"]
        if status["state"] == "failed":
            err = status["error"]
            raise ImpactError(err["code"], err["message"], err.get("data"))
        raise ImpactError(None, f"job {job} is still {status['state']}")

    def cancel(self, job):
        return self.call("job.cancel", {"job": job})

    def pause(self, job, time=None, increment=None):
        params = {"job": job}
        if time is not None:
            params["time"] = time
        if increment is not None:
            params["increment"] = increment
        return self.call("job.pause", params)

    def resume(self, job):
        return self.call("job.resume", {"job": job})

    def jobs(self, state=None):
        return self.call("job.list", {"state": state} if state else {})["jobs"]

    def info(self):
        return self.call("server.info")
