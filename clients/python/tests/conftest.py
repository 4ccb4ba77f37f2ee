"""Fixtures: the server binary (IMPACT_SERVER, set by the Rust test that runs these, or
PATH) and the bars model of tests/oracle/explicit-bars."""

import json
import os
import pathlib
import shutil
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from impact_client import LocalServer  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def binary():
    path = os.environ.get("IMPACT_SERVER") or shutil.which("impact-server")
    if not path:
        pytest.fail("set IMPACT_SERVER to the impact-server binary (cargo test does)")
    return path


@pytest.fixture(scope="session")
def server(binary):
    with LocalServer(binary) as s:
        yield s


@pytest.fixture
def client(server):
    return server.client()


@pytest.fixture
def bars():
    """The bars model: two equal bars, c = 100, rho c A = 1, L = 10, v0 = 0.1."""
    text = (ROOT / "tests/oracle/explicit-bars/model.json").read_text()
    return json.loads(text)["model"]
