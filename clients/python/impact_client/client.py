"""JSON-RPC 2.0 over HTTP POST to an Impact server: one method per call, errors raised as
ImpactError with the server's code, message and data (the JSON pointer, job, element,
time)."""

import itertools
import json
import time
import urllib.error
import urllib.request


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


class Client:
    """A client of one server, e.g. Client("http://127.0.0.1:7878", token="...")."""

    def __init__(self, url, token=None, timeout=600.0):
        self.url = url.rstrip("/") + "/"
        self.token = token
        self.timeout = timeout
        self._ids = itertools.count(1)

    def call(self, method, params=None, timeout=None):
        """Call one method; the result, or ImpactError."""
        request = {"jsonrpc": "2.0", "id": next(self._ids), "method": method}
        if params is not None:
            request["params"] = params
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        req = urllib.request.Request(
            self.url, json.dumps(request).encode("utf-8"), headers, method="POST"
        )
        try:
            with urllib.request.urlopen(req, timeout=timeout or self.timeout) as r:
                answer = json.loads(r.read().decode("utf-8"))
        except urllib.error.HTTPError as e:
            body = e.read().decode("utf-8", "replace")
            try:
                answer = json.loads(body)
            except ValueError:
                raise ImpactError(None, f"HTTP {e.code}: {body}") from None
        except urllib.error.URLError as e:
            raise ImpactError(None, f"cannot reach {self.url}: {e.reason}") from None
        if "error" in answer:
            err = answer["error"]
            raise ImpactError(err.get("code"), err.get("message", ""), err.get("data"))
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
        req = urllib.request.Request(self.url.rstrip("/") + path, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as r:
                return r.read()
        except urllib.error.HTTPError as e:
            body = e.read().decode("utf-8", "replace")
            raise ImpactError(None, f"HTTP {e.code} for {path}: {body}") from None

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
