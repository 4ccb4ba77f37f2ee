"""impact_client against the real server: the bars against one-dimensional impact theory
(Graff, Wave Motion in Elastic Solids, 2.1-2.3; tolerances as in
tests/oracle/explicit-bars/case.json), jobs, probes, history, errors with their JSON
pointer, the token, and the context manager finding the binary on PATH."""

import copy
import os
import pathlib

import pytest

from impact_client import Client, ImpactError, LocalServer

C, L, V0, M = 100.0, 10.0, 0.1, 0.1


def rel(got, want):
    return abs(got - want) / abs(want)


def test_solve_matches_the_theory_and_says_when_it_is_cached(client, bars):
    s = client.solve(bars)
    # Contact lasts 2L/c; the penalty springs delay the release about 1%.
    assert rel(s["contacts"][0]["last_contact"], 2 * L / C) < 0.02
    # Elastic impact keeps the kinetic energy; bulk viscosity takes a fraction of 1%.
    assert rel(s["energy"]["kinetic"], 0.5 * M * V0 * V0) < 0.01
    again = client.solve(bars)
    assert again["cached"] is True and again["job"] == s["job"]


def test_submit_wait_probe_and_history(client, bars):
    model = copy.deepcopy(bars)
    model["steps"][0]["output_interval"] = 0.01  # a model of its own: not cached
    job = client.submit(model)
    status = client.wait(job, timeout=120)
    assert status["state"] == "done"
    far = client.probe(job, at=[[0, 0, 0], [20, 0, 0]], fields=["velocity"])["nodes"]
    # The striker stops and the struck bar leaves at v0 (ringing of the discrete fronts:
    # a few percent of v0).
    assert abs(far[0]["velocity"][0]) < 0.005
    assert rel(far[1]["velocity"][0], V0) < 0.05
    h = client.history(job, max_points=100)
    # The interface force is rho c A v0 / 2 while the bars touch (4% for the ringing).
    assert rel(max(h["contacts"][0]["force"]), 0.5 * V0) < 0.04
    assert len(h["contacts"][0]["time"]) <= 100
    assert any(j["job"] == job for j in client.jobs("done"))


def test_cancel_stops_a_long_solve(client, bars):
    model = copy.deepcopy(bars)
    model["steps"][0]["duration"] = 100.0
    job = client.submit(model)
    client.cancel(job)
    status = client.wait(job, timeout=60)
    assert status["state"] == "failed"
    with pytest.raises(ImpactError) as e:
        client.result(job)
    assert "cancelled" in e.value.data["reason"]


def test_bad_input_names_its_pointer(client, bars):
    model = copy.deepcopy(bars)
    model["materials"][0]["rho"] = -1.0
    with pytest.raises(ImpactError) as e:
        client.solve(model)
    assert e.value.code == -32602
    assert e.value.pointer == "/model/materials/0/rho"
    with pytest.raises(ImpactError) as e:
        client.status("j-fffff")
    assert e.value.code == -32001


def test_a_token_is_required_when_set(binary, tmp_path):
    token = tmp_path / "token"
    token.write_text("py-secret\n")
    with LocalServer(binary, args=["--token-file", str(token)]) as s:
        with pytest.raises(ImpactError) as e:
            s.client().info()
        assert e.value.code == -32005
        assert s.client(token="py-secret").info()["auth"] is True


def test_the_context_manager_finds_the_binary_on_path(binary, monkeypatch):
    monkeypatch.delenv("IMPACT_SERVER", raising=False)
    monkeypatch.setenv("PATH", str(pathlib.Path(binary).parent) + os.pathsep + os.environ["PATH"])
    with LocalServer() as s:
        assert s.client().info()["name"] == "impact-server"
        url = s.url
    with pytest.raises(ImpactError):
        Client(url, timeout=2).info()
