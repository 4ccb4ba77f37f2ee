"""solve.export read back by independent readers: every .vtu of the colliding bars by
meshio (checked against the model's counts and one-dimensional impact theory: Graff,
Wave Motion in Elastic Solids, 2.1-2.3, tolerances and reasons as in
tests/oracle/explicit-bars/case.json), the .pvd time list by xml.etree against the
step's output interval, and the particle .vtp files (meshio reads no PolyData) by
xml.etree with the VTK XML format's rules, against the soft-sphere theory of
tests/oracle/particles-soft-spheres."""

import json
import pathlib
import xml.etree.ElementTree as ET

import meshio
import numpy as np
import pytest

from impact_client import ImpactError

ROOT = pathlib.Path(__file__).resolve().parents[3]
C, L, V0, RHO = 100.0, 10.0, 0.1, 0.01


def nearest(points, where):
    d = np.linalg.norm(points - np.asarray(where, dtype=float), axis=1)
    return int(np.argmin(d)), float(d.min())


def pressure(mesh):
    return mesh.point_data["contact_pressure"][:, 0]


def pvd_times(path):
    root = ET.parse(path).getroot()
    assert root.get("type") == "Collection"
    return [(float(d.get("timestep")), d.get("file")) for d in root.iter("DataSet")]


def test_bars_export_reads_in_meshio_with_the_theory(client, bars, tmp_path):
    summary = client.solve(bars)
    listing = client.download_export(summary["job"], tmp_path)
    assert listing["kind"] == "unstructured_grid"
    assert listing["parts"] == ["striker", "struck"]

    # Counts from the model: each bar is a block of nx x ny x nz hex8.
    blocks = [p["mesh"]["generate"] for p in bars["parts"]]
    n_nodes = sum((b["nx"] + 1) * (b["ny"] + 1) * (b["nz"] + 1) for b in blocks)
    n_cells = sum(b["nx"] * b["ny"] * b["nz"] for b in blocks)

    frames = [f for f in listing["files"] if f["name"].endswith(".vtu")]
    step = bars["steps"][0]
    # One frame at t = 0 and one per output interval to the step's end.
    assert len(frames) == 1 + round(step["duration"] / step["output_interval"])

    meshes = {}
    for f in frames:
        m = meshio.read(tmp_path / f["name"])
        assert len(m.points) == n_nodes, f["name"]
        assert [(c.type, len(c.data)) for c in m.cells] == [("hexahedron", n_cells)]
        assert m.point_data["velocity"].shape == (n_nodes, 3)
        assert m.point_data["displacement"].shape == (n_nodes, 3)
        assert m.point_data["contact_force"].shape == (n_nodes, 3)
        # One component: meshio gives it as a column.
        assert m.point_data["contact_pressure"].shape == (n_nodes, 1)
        assert m.cell_data["stress"][0].shape == (n_cells, 6)
        # The part ids follow the model's part order.
        part = m.cell_data["part_id"][0]
        assert list(part[: blocks[0]["nx"]]) == [0] * blocks[0]["nx"]
        assert list(part[blocks[0]["nx"]:]) == [1] * blocks[1]["nx"]
        assert float(m.field_data["TimeValue"][0]) == f["time"]
        meshes[f["name"]] = m

    first = meshes[frames[0]["name"]]
    reference = first.points - first.point_data["displacement"]
    striker_end, d0 = nearest(reference, [0, 0, 0])
    struck_end, d1 = nearest(reference, [2 * L, 0, 0])
    assert d0 == 0.0 and d1 == 0.0
    # At t = 0: the model's initial velocities, exactly, and no stress.
    assert list(first.point_data["velocity"][striker_end]) == [V0, 0.0, 0.0]
    assert list(first.point_data["velocity"][struck_end]) == [0.0, 0.0, 0.0]
    assert not first.cell_data["stress"][0].any()

    last = meshes[frames[-1]["name"]]
    assert frames[-1]["time"] == step["duration"]
    # After the impact the struck bar's far end leaves at v0 and the striker's stops
    # (case.json: ringing of the discrete wave fronts, 5% of v0 and 0.005 absolute).
    v_struck = last.point_data["velocity"][struck_end][0]
    v_striker = last.point_data["velocity"][striker_end][0]
    assert abs(v_struck - V0) / V0 < 0.05, v_struck
    assert abs(v_striker) < 0.005, v_striker
    # Points are the positions at the frame's time: reference + displacement.
    ref_last = last.points - last.point_data["displacement"]
    assert np.allclose(ref_last, reference, rtol=0, atol=1e-12)

    # Halfway through the contact (t near L/(2c)) the compression fronts stand at
    # c t from the interface; between them sigma_xx = -rho c v0 / 2 (A = 1), and the
    # bars ahead of them are unstressed. Tolerance as case.json's force: the plateau
    # carries the ringing behind the discrete fronts, a few percent.
    mid = min(frames, key=lambda f: abs(f["time"] - L / (2 * C)))
    m = meshes[mid["name"]]
    front = C * mid["time"]
    centres = (m.points - m.point_data["displacement"])[m.cells[0].data].mean(axis=1)
    sxx = m.cell_data["stress"][0][:, 0]
    inside = np.abs(centres[:, 0] - L) < front - 2.0
    ahead = np.abs(centres[:, 0] - L) > front + 2.0
    plateau = -RHO * C * V0 / 2
    assert inside.sum() > 100 and ahead.sum() > 100
    assert abs(sxx[inside].mean() - plateau) / abs(plateau) < 0.04, sxx[inside].mean()
    assert np.abs(sxx[ahead]).max() < 0.04 * abs(plateau)

    # The interface is pressed at rho c v0 / 2 while the bars touch (2L/c): every node of
    # the contact face (the plane x = L, both bars) shows it, away from the contact's
    # start and end. Tolerance as case.json's force (the ringing behind the discrete
    # fronts). Off the interface, and at t = 0, nothing is pressed.
    on_face = reference[:, 0] == L
    n_striker = (blocks[0]["nx"] + 1) * (blocks[0]["ny"] + 1) * (blocks[0]["nz"] + 1)
    assert on_face.sum() == 8
    assert not pressure(first).any()
    assert not first.point_data["contact_force"].any()
    plateau_frames = [f for f in frames if 0.1 * L / C < f["time"] < 1.9 * L / C]
    assert len(plateau_frames) > 25
    for f in plateau_frames:
        m = meshes[f["name"]]
        p = pressure(m)
        assert np.all(np.abs(p[on_face] - RHO * C * V0 / 2) < 0.04 * RHO * C * V0 / 2), (
            f["time"], p[on_face])
        assert not p[~on_face].any() and not m.point_data["contact_force"][~on_face].any()
        # The bars push each other apart along x, each with the plateau force (A = 1):
        # the striker's nodes come first (parts are numbered one after another).
        force = m.point_data["contact_force"]
        on_striker = on_face & (np.arange(n_nodes) < n_striker)
        on_struck = on_face & (np.arange(n_nodes) >= n_striker)
        push = force[on_struck, 0].sum()
        assert abs(push - RHO * C * V0 / 2) < 0.04 * RHO * C * V0 / 2, (f["time"], push)
        assert abs(force[on_striker, 0].sum() + push) < 1e-12 * push
        assert np.abs(force[on_face, 1:]).max() < 1e-12 * push
    # After the bars part (the last frame) nothing presses.
    assert not pressure(last).any()


def test_the_pvd_lists_every_frame_at_its_output_time(client, bars, tmp_path):
    summary = client.solve(bars)
    listing = client.download_export(summary["job"], tmp_path)
    series = pvd_times(tmp_path / listing["series"])
    frames = [f for f in listing["files"] if f["name"] != listing["series"]]
    assert [name for _, name in series] == [f["name"] for f in frames]
    assert [t for t, _ in series] == [f["time"] for f in frames]
    times = [t for t, _ in series]
    dt_out = bars["steps"][0]["output_interval"]
    # A frame is stored at the first increment's end at or after each output time, one
    # per interval; the last at the step's end.
    assert times[0] == 0.0 and times[-1] == bars["steps"][0]["duration"]
    for k, t in enumerate(times[1:-1], start=1):
        assert k * dt_out <= t + 1e-12 < (k + 1) * dt_out, (k, t)
    assert all(b > a for a, b in zip(times, times[1:]))


def test_inline_export_and_the_routes_errors(client, bars, tmp_path):
    summary = client.solve(bars)
    job = summary["job"]
    inline = client.export(job, inline=True)
    one = inline["files"][3]
    assert one["content"].encode() == client.get(one["url"])
    # Nodal contact forces are exported; only the rigid walls' (impulses) are not.
    assert "contact_pressure" in inline["point_data"]
    assert len(inline["not_exported"]) == 1 and "walls" in inline["not_exported"][0]
    with pytest.raises(ImpactError, match="404"):
        client.get(f"/export/{job}/frame_99999.vtu")
    with pytest.raises(ImpactError, match="404"):
        client.get(f"/export/{job}/..%2f..%2fetc")
    with pytest.raises(ImpactError) as e:
        client.export("no-such-job")
    assert e.value.code == -32001


def vtk_array(parent, name=None):
    for a in parent.iter("DataArray"):
        if name is None or a.get("Name") == name:
            assert a.get("format") == "ascii"
            values = np.array(a.text.split(), dtype=float)
            k = int(a.get("NumberOfComponents", "1"))
            return values.reshape(-1, k) if k > 1 else values
    raise AssertionError(f"no DataArray {name}")


def test_particle_export_as_polydata(client, tmp_path):
    model = json.loads(
        (ROOT / "tests/oracle/particles-soft-spheres/model.json").read_text())["model"]
    summary = client.solve(model)
    listing = client.download_export(summary["job"], tmp_path)
    assert listing["kind"] == "poly_data"
    frames = [f for f in listing["files"] if f["name"].endswith(".vtp")]
    assert [n for _, n in pvd_times(tmp_path / listing["series"])] == [
        f["name"] for f in frames]
    groups = model["particles"]["groups"]
    spheres = [s for g in groups for s in g["spheres"]]
    parsed = []
    for f in frames:
        root = ET.parse(tmp_path / f["name"]).getroot()
        assert root.get("type") == "PolyData"
        piece = root.find("PolyData/Piece")
        assert int(piece.get("NumberOfPoints")) == len(spheres)
        assert int(piece.get("NumberOfVerts")) == len(spheres)
        points = vtk_array(piece.find("Points"))
        pd = piece.find("PointData")
        radius = vtk_array(pd, "radius")
        assert list(radius) == [g["radius"] for g in groups for _ in g["spheres"]]
        assert list(vtk_array(pd, "group_id")) == [
            i for i, g in enumerate(groups) for _ in g["spheres"]]
        verts = piece.find("Verts")
        assert list(vtk_array(verts, "connectivity")) == list(range(len(spheres)))
        assert list(vtk_array(verts, "offsets")) == list(range(1, len(spheres) + 1))
        parsed.append((points, vtk_array(pd, "velocity")))
    # t = 0: the model's positions and velocities, exactly.
    assert parsed[0][0].tolist() == [s["position"] for s in spheres]
    assert parsed[0][1].tolist() == [s["velocity"] for s in spheres]
    # After the collision: the hard-sphere velocities -1 and 0.5 m/s (case.json: 0.15%,
    # the soft contact's finite duration resolved by 40 increments).
    v = parsed[-1][1][:, 0]
    assert abs(v[0] - -1.0) < 0.0015 and abs(v[1] - 0.5) / 0.5 < 0.0015, v
