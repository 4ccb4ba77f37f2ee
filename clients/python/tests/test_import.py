"""mesh.import against files from an independent writer (meshio's Abaqus and Gmsh 4.1
writers) and a hand-written input in the Abaqus Keywords Reference's format: counts,
coordinates, sets, positive element volumes and faces on the sides the Abaqus face
numbering (S1..S6) puts them; then the colliding bars built from imported inputs against
one-dimensional impact theory (Graff, Wave Motion in Elastic Solids, 2.1-2.3; tolerances
and reasons of tests/oracle/explicit-bars/case.json); then every refusal with its line."""

import copy
import pathlib
import tempfile

import meshio
import numpy as np
import pytest

from impact_client import ImpactError

C, L, V0 = 100.0, 10.0, 0.1

# The Abaqus Keywords Reference's brick faces, as 1-based element node numbers.
ABAQUS_FACES = {
    "S1": (1, 2, 3, 4), "S2": (5, 8, 7, 6), "S3": (1, 5, 6, 2),
    "S4": (2, 6, 7, 3), "S5": (3, 7, 8, 4), "S6": (4, 8, 5, 1),
}


def block(origin, size, n):
    """A structured hex8 block, nodes numbered x fastest, elements bottom face
    counter-clockwise seen from +z then the top (the Abaqus and Gmsh brick order)."""
    nx, ny, nz = n
    xs = [origin[0] + size[0] * i / nx for i in range(nx + 1)]
    ys = [origin[1] + size[1] * j / ny for j in range(ny + 1)]
    zs = [origin[2] + size[2] * k / nz for k in range(nz + 1)]
    points = np.array([[x, y, z] for z in zs for y in ys for x in xs])

    def nid(i, j, k):
        return i + (nx + 1) * (j + (ny + 1) * k)

    hexes = np.array([
        [nid(i, j, k), nid(i + 1, j, k), nid(i + 1, j + 1, k), nid(i, j + 1, k),
         nid(i, j, k + 1), nid(i + 1, j, k + 1), nid(i + 1, j + 1, k + 1),
         nid(i, j + 1, k + 1)]
        for k in range(nz) for j in range(ny) for i in range(nx)])
    return points, hexes


def hex_volume(x):
    """Volume of a hex8 (corners in the brick order) from six tetrahedra sharing the
    diagonal 0-6; positive for a right-handed element."""
    tets = [(0, 1, 2, 6), (0, 2, 3, 6), (0, 3, 7, 6), (0, 7, 4, 6), (0, 4, 5, 6),
            (0, 5, 1, 6)]
    return sum(np.linalg.det(np.array([x[b] - x[a], x[c] - x[a], x[d] - x[a]])) / 6
               for a, b, c, d in tets)


def written(mesh, file_format):
    """The text meshio writes for `mesh` (it writes to files by name)."""
    with tempfile.TemporaryDirectory() as d:
        path = pathlib.Path(d) / ("m.msh" if file_format == "gmsh" else "m.inp")
        if file_format == "gmsh":
            meshio.write(path, mesh, file_format="gmsh", binary=False)
        else:
            meshio.write(path, mesh, file_format=file_format)
        return path.read_text()


def check_volumes(result):
    nodes = np.array(result["mesh"]["nodes"])
    for conn in result["mesh"]["elements"]:
        assert hex_volume(nodes[conn]) > 0


def test_meshio_abaqus_block(client):
    points, hexes = block([0, 0, 0], [2.0, 1.0, 0.5], (4, 3, 2))
    xmin = np.where(points[:, 0] == 0.0)[0]
    mesh = meshio.Mesh(points, [("hexahedron", hexes)], point_sets={"xmin": xmin},
                       cell_sets={"first_row": [np.arange(4)]})
    r = client.import_mesh("abaqus", written(mesh, "abaqus"))
    assert (r["nodes"], r["elements"]) == (5 * 4 * 3, 4 * 3 * 2)
    # meshio writes %.16e: the coordinates come back to the bit.
    assert np.array_equal(np.array(r["mesh"]["nodes"]), points)
    assert r["mesh"]["elements"] == hexes.tolist()
    assert r["mesh"]["node_sets"]["xmin"] == xmin.tolist()
    assert r["element_sets"]["first_row"] == [0, 1, 2, 3]
    assert r["dropped_nodes"] == 0
    assert r["quality"]["min_jacobian_ratio"] == pytest.approx(1.0, abs=1e-12)
    check_volumes(r)


def test_meshio_gmsh41_block_with_a_physical_volume(client):
    points, hexes = block([1.0, -1.0, 0], [1.0, 2.0, 3.0], (2, 2, 3))
    mesh = meshio.Mesh(
        points, [("hexahedron", hexes)],
        point_data={"gmsh:dim_tags": np.array([[3, 1]] * len(points))},
        cell_data={"gmsh:physical": [np.full(len(hexes), 7)],
                   "gmsh:geometrical": [np.ones(len(hexes), dtype=int)]},
        field_data={"body": np.array([7, 3])})
    text = written(mesh, "gmsh")
    assert text.splitlines()[1].startswith("4.1 0")
    r = client.import_mesh("gmsh", text)
    assert (r["nodes"], r["elements"]) == (3 * 3 * 4, 2 * 2 * 3)
    assert np.array_equal(np.array(r["mesh"]["nodes"]), points)
    assert r["mesh"]["elements"] == hexes.tolist()
    assert r["element_sets"]["body"] == list(range(len(hexes)))
    assert r["mesh"]["node_sets"]["body"] == list(range(len(points)))
    check_volumes(r)


# A 2 x 1 x 1 block by hand in the Keywords Reference's format: sets by list, by
# GENERATE and by set name, and an element-based surface per side.
HAND = """*HEADING
two bricks, written by hand
** node, x, y, z
*NODE, NSET=ALLN
101, 0.0, 0.0, 0.0
102, 1.0, 0.0, 0.0
103, 2.0, 0.0, 0.0
104, 0.0, 1.0, 0.0
105, 1.0, 1.0, 0.0
106, 2.0, 1.0, 0.0
107, 0.0, 0.0, 1.0
108, 1.0, 0.0, 1.0
109, 2.0, 0.0, 1.0
110, 0.0, 1.0, 1.0
111, 1.0, 1.0, 1.0
112, 2.0, 1.0, 1.0
999, 5.0, 5.0, 5.0
*ELEMENT, TYPE=C3D8, ELSET=BODY
11, 101, 102, 105, 104, 107, 108, 111, 110
12, 102, 103, 106, 105, 108, 109, 112, 111
*NSET, NSET=LEFT
101, 104, 107, 110
*NSET, NSET=EVERY_OTHER, GENERATE
101, 111, 2
*ELSET, ELSET=RIGHT_EL, GENERATE
12, 12, 1
*ELSET, ELSET=BOTH
11, RIGHT_EL
*SURFACE, NAME=XMAX, TYPE=ELEMENT
RIGHT_EL, S4
*SURFACE, NAME=XMIN
11, S6
*SURFACE, NAME=BOTTOM
BOTH, S1
*SURFACE, NAME=TOP
BOTH, S2
*SURFACE, NAME=FRONT
BOTH, S3
*SURFACE, NAME=BACK
BOTH, S5
*MATERIAL, NAME=STEEL
*ELASTIC
210000., 0.3
"""

# Where each surface must lie: (axis, coordinate), and its outward direction.
SIDES = {"XMAX": (0, 2.0, +1), "XMIN": (0, 0.0, -1), "BOTTOM": (2, 0.0, -1),
         "TOP": (2, 1.0, +1), "FRONT": (1, 0.0, -1), "BACK": (1, 1.0, +1)}


def test_hand_written_abaqus_sets_and_surfaces(client):
    r = client.import_mesh("abaqus", HAND)
    m = r["mesh"]
    # Node 999 belongs to no element: left out.
    assert (r["nodes"], r["elements"], r["dropped_nodes"]) == (12, 2, 1)
    assert m["node_sets"]["LEFT"] == [0, 3, 6, 9]
    assert m["node_sets"]["EVERY_OTHER"] == [0, 2, 4, 6, 8, 10]
    assert m["node_sets"]["ALLN"] == list(range(12))
    assert r["element_sets"] == {"BODY": [0, 1], "RIGHT_EL": [1], "BOTH": [0, 1]}
    nodes = np.array(m["nodes"])
    check_volumes(r)
    names = {f"S{k + 1}": k for k in range(6)}
    for surface, (axis, at, outward) in SIDES.items():
        faces = m["face_sets"][surface]
        assert faces, surface
        for element, k in faces:
            conn = m["elements"][element]
            face = [k_ for k_ in ABAQUS_FACES if names[k_] == k][0]
            corners = nodes[[conn[i - 1] for i in ABAQUS_FACES[face]]]
            # The face lies on its side of the block ...
            assert np.allclose(corners[:, axis], at), (surface, corners)
            # ... on the element's outer side: the table lists each face's corners
            # turning about the normal into the element (right-hand rule), which points
            # against the side's outward direction.
            n = np.cross(corners[1] - corners[0], corners[2] - corners[0])
            assert np.sign(n[axis]) == -outward, (surface, n)
    assert len(m["face_sets"]["BOTTOM"]) == 2 and len(m["face_sets"]["XMAX"]) == 1


def bar_input(origin, name, face):
    """One bar (200 x 1 x 1 bricks of the bars' case) by meshio, with an element set
    and an element-based surface appended in the Keywords Reference's format."""
    points, hexes = block(origin, [L, 1.0, 1.0], (200, 1, 1))
    end = 200 if face == "S4" else 1
    text = written(meshio.Mesh(points, [("hexahedron", hexes)]), "abaqus")
    return text + f"*ELSET, ELSET=END\n{end}\n*SURFACE, NAME={name}\nEND, {face}\n"


def test_bars_from_imported_inputs_meet_the_theory(client, bars):
    striker = client.import_mesh("abaqus", bar_input([0, 0, 0], "xmax", "S4"))
    struck = client.import_mesh("abaqus", bar_input([L, 0, 0], "xmin", "S6"))
    model = copy.deepcopy(bars)
    model["title"] = "the bars from imported Abaqus inputs"
    for part, imported in zip(model["parts"], (striker, struck)):
        part["mesh"] = imported["mesh"]
    s = client.solve(model)
    # case.json: contact for 2L/c (penalty delay about 1%: 2%), the force rho c A v0 / 2
    # (ringing at the front: 4%), the struck bar's far end leaves at v0 (5%).
    assert abs(s["contacts"][0]["last_contact"] - 2 * L / C) / (2 * L / C) < 0.02
    assert abs(s["contacts"][0]["peak_force"] - 0.05) / 0.05 < 0.04
    far = client.probe(s["job"], at=[[2 * L, 0, 0]], fields=["velocity"])["nodes"][0]
    assert abs(far["velocity"][0] - V0) / V0 < 0.05


CUBE_INP = """*NODE
1, 0., 0., 0.
2, 1., 0., 0.
3, 1., 1., 0.
4, 0., 1., 0.
5, 0., 0., 1.
6, 1., 0., 1.
7, 1., 1., 1.
8, 0., 1., 1.
*ELEMENT, TYPE=C3D8R
1, 1, 2, 3, 4, 5, 6, 7, 8
*SURFACE, NAME=TOP
1, S2
"""

CUBE_MSH = """$MeshFormat
4.1 0 8
$EndMeshFormat
$Nodes
1 8 1 8
3 1 0 8
1
2
3
4
5
6
7
8
0 0 0
1 0 0
1 1 0
0 1 0
0 0 1
1 0 1
1 1 1
0 1 1
$EndNodes
$Elements
1 1 1 1
3 1 5 1
1 1 2 3 4 5 6 7 8
$EndElements
"""


def refused(client, fmt, text):
    with pytest.raises(ImpactError) as e:
        client.import_mesh(fmt, text)
    assert e.value.code == -32602
    assert e.value.pointer == "/text"
    return e.value.data["line"], e.value.message


@pytest.mark.parametrize("fmt,old,new,line,words", [
    ("abaqus", "TYPE=C3D8R", "TYPE=C3D4", 10, "tetrahedra"),
    ("abaqus", "TYPE=C3D8R", "TYPE=C3D20R", 10, "second-order"),
    ("abaqus", "1, 1, 2, 3, 4, 5, 6, 7, 8", "1, 1, 2, 3, 4, 5, 6, 7, 9", 11, "node 9"),
    ("abaqus", "3, 1., 1., 0.", "3, 1., one, 0.", 4, "'one'"),
    ("abaqus", "1, S2", "1, S9", 13, "S9"),
    ("abaqus", "NAME=TOP", "NAME=TOP, TYPE=NODE", 12, "element-based"),
    ("abaqus", "1, 1, 2, 3, 4, 5, 6, 7, 8", "1, 5, 6, 7, 8, 1, 2, 3, 4", 11, "inverted"),
    ("gmsh", "4.1 0 8", "2.2 0 8", 2, "version 2.2"),
    ("gmsh", "4.1 0 8", "4.1 1 8", 2, "binary"),
    ("gmsh", "3 1 5 1", "3 1 4 1", 26, "tetrahedra"),
    ("gmsh", "3 1 5 1", "3 1 17 1", 26, "second-order"),
    ("gmsh", "1 1 2 3 4 5 6 7 8", "1 1 2 3 4 5 6 7 9", 27, "node 9"),
    ("gmsh", "1 1 0\n", "1 x 0\n", 17, "'x'"),
])
def test_each_refusal_names_its_line(client, fmt, old, new, line, words):
    base = CUBE_INP if fmt == "abaqus" else CUBE_MSH
    assert old in base
    got_line, message = refused(client, fmt, base.replace(old, new, 1))
    assert got_line == line, message
    assert words in message, message


def test_the_untouched_files_import(client):
    assert client.import_mesh("abaqus", CUBE_INP)["mesh"]["face_sets"]["TOP"] == [[0, 1]]
    assert client.import_mesh("gmsh", CUBE_MSH)["elements"] == 1
