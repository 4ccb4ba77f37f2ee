"""The client's kept-alive connection, against a stand-in HTTP server that counts the
connections it accepts and can close one after a given number of answers without saying
so (as a server closing an idle connection does): one connection serves a thread's calls,
and a connection the server closed is replaced before the next call, not failed on."""

import json
import socket
import threading

import pytest

from impact_client import Client, ImpactError


class StandIn:
    """Answers every JSON-RPC POST with {"result": n}, n counting the answers."""

    def __init__(self, close_after=None):
        self.close_after = close_after
        self.accepted = 0
        self.answered = 0
        self.closed = threading.Semaphore(0)
        self.lock = threading.Lock()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = "http://127.0.0.1:%d" % self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.accepted += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn):
        reader = conn.makefile("rb")
        served = 0
        with conn, reader:
            while True:
                line = reader.readline()
                if not line:
                    return
                length = 0
                while line not in (b"\r\n", b"\n", b""):
                    name, _, value = line.decode("latin-1").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                    line = reader.readline()
                request = json.loads(reader.read(length))
                with self.lock:
                    self.answered += 1
                    n = self.answered
                body = json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": n}).encode()
                conn.sendall(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
                )
                served += 1
                if self.close_after is not None and served == self.close_after:
                    conn.shutdown(socket.SHUT_RDWR)
                    self.closed.release()
                    return

    def stop(self):
        self.listener.close()


def test_one_connection_serves_a_threads_calls():
    server = StandIn()
    c = Client(server.url)
    assert [c.call("server.info") for _ in range(20)] == list(range(1, 21))
    assert server.accepted == 1
    server.stop()


def test_a_connection_the_server_closed_is_replaced_before_the_next_call():
    server = StandIn(close_after=2)
    c = Client(server.url)
    got = []
    for i in range(5):
        got.append(c.call("server.info"))
        if i % 2 == 1:
            # The server has closed the idle connection before the client calls again.
            assert server.closed.acquire(timeout=10)
    assert got == [1, 2, 3, 4, 5]
    # Answers 1-2, 3-4 and 5 came on three connections.
    assert server.accepted == 3
    server.stop()


def test_each_thread_has_its_own_connection():
    server = StandIn()
    c = Client(server.url)
    results = []
    threads = [
        threading.Thread(target=lambda: results.extend(c.call("x") for _ in range(10)))
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == list(range(1, 41))
    assert server.accepted == 4
    server.stop()


def test_an_address_that_is_not_http_is_refused():
    with pytest.raises(ImpactError):
        Client("ftp://127.0.0.1:1")
