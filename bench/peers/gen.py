#!/usr/bin/env python3
"""Write the inputs of bench/peers.sh from one set of parameters per problem.

Each problem is written twice from the same numbers: once as an Impact model (JSON for
`impact solve`) and once as the peer's own input (a CalculiX deck or a LIGGGHTS script),
so the two codes get the same mesh, material, initial state, end time and output amount.

    gen.py OUT_DIR REPO_ROOT

writes into OUT_DIR:
  bars.json, bars.inp          the colliding bars of tests/oracle/explicit-bars
  block.json, block.inp        a 25 x 25 x 40 steel block striking a 50 x 50 x 10 plate
  spheres.json, spheres.in,    10 000 Hertz spheres settling in a box under gravity
  spheres.data
Standard library only.
"""

import json
import math
import os
import sys

# ---------------------------------------------------------------------------------------
# Hex8 grids, numbered the way both codes read them.
# ---------------------------------------------------------------------------------------


class Grid:
    """A structured block of nx x ny x nz hex8 with CalculiX node and element numbers
    starting after `node0` and `elem0` (1-based as CalculiX wants)."""

    def __init__(self, origin, size, n, node0, elem0):
        self.origin, self.size, self.n = origin, size, n
        self.node0, self.elem0 = node0, elem0

    def node(self, i, j, k):
        nx, ny, _ = self.n
        return self.node0 + 1 + i + (nx + 1) * (j + (ny + 1) * k)

    def elem(self, i, j, k):
        nx, ny, _ = self.n
        return self.elem0 + 1 + i + nx * (j + ny * k)

    def nodes(self):
        nx, ny, nz = self.n
        for k in range(nz + 1):
            for j in range(ny + 1):
                for i in range(nx + 1):
                    x = [self.origin[a] + self.size[a] * (i, j, k)[a] / self.n[a] for a in range(3)]
                    yield self.node(i, j, k), x

    def elements(self):
        # C3D8 order: the face z = k first, counterclockwise seen from +z, then z = k + 1.
        nx, ny, nz = self.n
        for k in range(nz):
            for j in range(ny):
                for i in range(nx):
                    c = [
                        self.node(i, j, k), self.node(i + 1, j, k),
                        self.node(i + 1, j + 1, k), self.node(i, j + 1, k),
                        self.node(i, j, k + 1), self.node(i + 1, j, k + 1),
                        self.node(i + 1, j + 1, k + 1), self.node(i, j + 1, k + 1),
                    ]
                    yield self.elem(i, j, k), c

    def node_count(self):
        nx, ny, nz = self.n
        return (nx + 1) * (ny + 1) * (nz + 1)

    def elem_count(self):
        nx, ny, nz = self.n
        return nx * ny * nz


def lines_of(ids, per_line=8):
    """A CalculiX list of numbers, 8 a line (CalculiX reads at most 16 ids a line)."""
    ids = list(ids)
    return "\n".join(
        ", ".join(str(i) for i in ids[s : s + per_line]) for s in range(0, len(ids), per_line)
    )


def write_mesh(out, grids, names):
    out.append("*NODE, NSET=NALL")
    for g in grids:
        for nid, x in g.nodes():
            out.append(f"{nid}, {x[0]:.12g}, {x[1]:.12g}, {x[2]:.12g}")
    for g, name in zip(grids, names):
        out.append(f"*ELEMENT, TYPE=C3D8R, ELSET={name}")
        for eid, c in g.elements():
            out.append(f"{eid}, " + ", ".join(str(n) for n in c))


def write_decks(out_dir, name, model_lines, dt0, duration, history):
    """Write a problem's three CalculiX decks, which differ only in their step:

    NAME.inp          the timed run: nodal U and V every @EVERY@ increments, which
                      peers.sh sets from the increment CalculiX selects so that the frame
                      count is Impact's (CalculiX 2.20 ignores TIME POINTS in an explicit
                      step, and one FREQUENCY serves every print and file request);
    NAME.probe.inp    one increment and no output, to read that selected increment;
    NAME.history.inp  (when `history` holds print requests) those requests every
                      increment and no frames: the accuracy run, not timed.
    """

    def step(length, requests):
        return model_lines + [
            "*STEP, INC=10000000",
            "*DYNAMIC, EXPLICIT",
            # The initial increment; CalculiX replaces it by its own stable increment.
            f"{dt0:.12g}, {length:.12g}",
        ] + requests + ["*END STEP"]

    decks = {
        f"{name}.inp": step(duration, ["*NODE FILE, FREQUENCY=@EVERY@", "U, V"]),
        f"{name}.probe.inp": step(dt0, []),
    }
    if history:
        decks[f"{name}.history.inp"] = step(duration, history)
    for file, lines in decks.items():
        with open(os.path.join(out_dir, file), "w") as f:
            f.write("\n".join(lines) + "\n")


# ---------------------------------------------------------------------------------------
# (1) The colliding bars, read from the oracle's model.
# ---------------------------------------------------------------------------------------


def bars(out_dir, repo):
    with open(os.path.join(repo, "tests/oracle/explicit-bars/model.json")) as f:
        params = json.load(f)
    m = params["model"]
    mat = m["materials"][0]
    a, b = (p["mesh"]["generate"] for p in m["parts"])
    v0 = m["initial_velocities"][0]["velocity"]
    step = m["steps"][0]
    with open(os.path.join(out_dir, "bars.json"), "w") as f:
        json.dump(params, f, indent=1)

    ga = Grid(a["origin"], a["size"], (a["nx"], a["ny"], a["nz"]), 0, 0)
    gb = Grid(b["origin"], b["size"], (b["nx"], b["ny"], b["nz"]), ga.node_count(), ga.elem_count())
    E, rho = mat["E"], mat["rho"]
    h = a["size"][0] / a["nx"]
    out = ["*HEADING", "Impact peers: the colliding bars (tests/oracle/explicit-bars)"]
    write_mesh(out, [ga, gb], ["STRIKER", "STRUCK"])
    nx = a["nx"]
    # The striker's face x = 10 (C3D8 face S4: nodes 2-6-7-3) and the struck bar's nodes at x = 10.
    out.append("*SURFACE, NAME=SMAIN, TYPE=ELEMENT")
    for j in range(a["ny"]):
        for k in range(a["nz"]):
            out.append(f"{ga.elem(nx - 1, j, k)}, S4")
    out.append("*NSET, NSET=NSEC")
    out.append(lines_of(gb.node(0, j, k) for k in range(b["nz"] + 1) for j in range(b["ny"] + 1)))
    out.append("*SURFACE, NAME=SSEC, TYPE=NODE")
    out.append("NSEC")
    # The striker's node set for the initial velocity; the far ends for the accuracy table.
    out.append("*NSET, NSET=NSTRIKER, GENERATE")
    out.append(f"1, {ga.node_count()}, 1")
    out.append("*ELSET, ELSET=EFIRST")
    out.append(str(gb.elem(0, 0, 0)))
    out.append("*NSET, NSET=NFAR")
    out.append(f"{ga.node(0, 0, 0)}, {gb.node(b['nx'], 0, 0)}")
    out += [
        "*MATERIAL, NAME=BAR",
        "*ELASTIC",
        f"{E:.12g}, {mat['nu']:.12g}",
        "*DENSITY",
        f"{rho:.12g}",
        "*SOLID SECTION, ELSET=STRIKER, MATERIAL=BAR",
        "*SOLID SECTION, ELSET=STRUCK, MATERIAL=BAR",
        # Penalty: pressure = K x overclosure with K = E/h, the axial stiffness per area of
        # one element: stiff enough that the interface does not soften the bars, soft
        # enough to leave the stable increment to the elements.
        "*SURFACE INTERACTION, NAME=SI",
        "*SURFACE BEHAVIOR, PRESSURE-OVERCLOSURE=LINEAR",
        # A vanishing tension at large clearances (CalculiX wants it positive): no pull.
        f"{E / h:.12g}, {E * 1e-9:.12g}, {h:.12g}",
        "*CONTACT PAIR, INTERACTION=SI, TYPE=NODE TO SURFACE",
        "SSEC, SMAIN",
        "*INITIAL CONDITIONS, TYPE=VELOCITY",
        f"NSTRIKER, 1, {v0[0]:.12g}",
    ]
    # The accuracy run: the contact pressure at the struck bar's nodes (for the last
    # contact), the stress of the struck bar's first element (the interface force, at
    # h/2 from it) and the far ends' velocities, every increment.
    history = [
        "*CONTACT PRINT, SLAVE=SSEC, MASTER=SMAIN, FREQUENCY=1",
        "CSTR",
        "*EL PRINT, ELSET=EFIRST, FREQUENCY=1",
        "S",
        "*NODE PRINT, NSET=NFAR, FREQUENCY=1",
        "V",
    ]
    write_decks(out_dir, "bars", out, 0.9 * h / math.sqrt(E / rho), step["duration"], history)


# ---------------------------------------------------------------------------------------
# (2) A steel block striking a plate: 25 000 + 25 000 hex8 of 2 mm.
# ---------------------------------------------------------------------------------------

BLOCK = {
    "E": 210e9, "nu": 0.3, "rho": 7850.0,
    # The plate 100 x 100 x 20 mm (50 x 50 x 10), its base held; the block 50 x 50 x 80 mm
    # (25 x 25 x 40) centred on it, touching, at 10 m/s downwards.
    "plate": {"origin": [0.0, 0.0, 0.0], "size": [0.1, 0.1, 0.02], "n": [50, 50, 10]},
    "block": {"origin": [0.025, 0.025, 0.02], "size": [0.05, 0.05, 0.08], "n": [25, 25, 40]},
    "v0": -10.0,
    # About two wave transits of the plate's thickness (c = 5.8 km/s): 40 us.
    "duration": 4e-5,
    "output_interval": 1e-5,
}


def block(out_dir):
    p = BLOCK
    model = {
        "model": {
            "title": "Impact peers: a 25 x 25 x 40 steel block striking a 50 x 50 x 10 plate",
            "materials": [{"name": "steel", "E": p["E"], "nu": p["nu"], "rho": p["rho"]}],
            "parts": [
                {"name": name, "material": "steel", "mesh": {"generate": {
                    "kind": "block", "origin": p[name]["origin"], "size": p[name]["size"],
                    "nx": p[name]["n"][0], "ny": p[name]["n"][1], "nz": p[name]["n"][2]}}}
                for name in ("plate", "block")
            ],
            "initial_velocities": [{"part": "block", "velocity": [0, 0, p["v0"]]}],
            "boundary_conditions": [{"part": "plate", "set": "zmin", "fixed": ["x", "y", "z"]}],
            "contacts": [{"name": "impact", "secondary": {"part": "block", "set": "zmin"},
                          "main": {"part": "plate", "set": "zmax"}}],
            "steps": [{"name": "Impact", "duration": p["duration"],
                       "output_interval": p["output_interval"]}],
        }
    }
    with open(os.path.join(out_dir, "block.json"), "w") as f:
        json.dump(model, f, indent=1)

    gp = Grid(p["plate"]["origin"], p["plate"]["size"], p["plate"]["n"], 0, 0)
    gb = Grid(p["block"]["origin"], p["block"]["size"], p["block"]["n"], gp.node_count(), gp.elem_count())
    h = p["plate"]["size"][2] / p["plate"]["n"][2]
    c = math.sqrt(p["E"] * (1 - p["nu"]) / ((1 + p["nu"]) * (1 - 2 * p["nu"])) / p["rho"])
    pnx, pny, pnz = p["plate"]["n"]
    bnx, bny, _ = p["block"]["n"]
    out = ["*HEADING", "Impact peers: a steel block striking a plate"]
    write_mesh(out, [gp, gb], ["PLATE", "BLOCK"])
    # The plate's top under the block (C3D8 face S2: nodes 5-8-7-6 at z = k + 1), the
    # block's bottom nodes.
    out.append("*SURFACE, NAME=SMAIN, TYPE=ELEMENT")
    for j in range(pny):
        for i in range(pnx):
            out.append(f"{gp.elem(i, j, pnz - 1)}, S2")
    out.append("*NSET, NSET=NSEC")
    out.append(lines_of(gb.node(i, j, 0) for j in range(bny + 1) for i in range(bnx + 1)))
    out.append("*SURFACE, NAME=SSEC, TYPE=NODE")
    out.append("NSEC")
    out.append("*NSET, NSET=NBASE")
    out.append(lines_of(gp.node(i, j, 0) for j in range(pny + 1) for i in range(pnx + 1)))
    out.append("*NSET, NSET=NBLOCK, GENERATE")
    out.append(f"{gb.node0 + 1}, {gb.node0 + gb.node_count()}, 1")
    out += [
        "*MATERIAL, NAME=STEEL",
        "*ELASTIC",
        f"{p['E']:.12g}, {p['nu']:.12g}",
        "*DENSITY",
        f"{p['rho']:.12g}",
        "*SOLID SECTION, ELSET=PLATE, MATERIAL=STEEL",
        "*SOLID SECTION, ELSET=BLOCK, MATERIAL=STEEL",
        "*SURFACE INTERACTION, NAME=SI",
        "*SURFACE BEHAVIOR, PRESSURE-OVERCLOSURE=LINEAR",
        f"{p['E'] / h:.12g}, {p['E'] * 1e-9:.12g}, {h:.12g}",
        "*CONTACT PAIR, INTERACTION=SI, TYPE=NODE TO SURFACE",
        "SSEC, SMAIN",
        "*BOUNDARY",
        "NBASE, 1, 3",
        "*INITIAL CONDITIONS, TYPE=VELOCITY",
        f"NBLOCK, 3, {p['v0']:.12g}",
    ]
    write_decks(out_dir, "block", out, 0.9 * h / c, p["duration"], [])


# ---------------------------------------------------------------------------------------
# (3) 10 000 Hertz spheres settling in a box: the particles bench's spheres in a box 1 cm wider,
# so the last column starts clear of the east wall.
# ---------------------------------------------------------------------------------------

SPHERES = {
    "side": 25, "layers": 16, "radius": 0.005, "density": 2500.0, "E": 1e7, "nu": 0.3,
    "box": 0.28, "gravity": 9.81,
    # A fixed increment both codes take: 1/50 of the Hertz contact time at 1 m/s (about
    # 1 ms) and under LIGGGHTS' 20% of the Rayleigh time (0.43 ms).
    "dt": 2e-5, "duration": 0.2, "frames": 10,
}


def scatter(state):
    """The particles bench's deterministic scatter in [0, 1) (a 64-bit LCG)."""
    state[0] = (state[0] * 6364136223846793005 + 1442695040888963407) % (1 << 64)
    return (state[0] >> 11) / float(1 << 53)


def spheres(out_dir):
    p = SPHERES
    r = p["radius"]
    seed = [7]
    spacing = 2.2 * r
    centres, velocities = [], []
    for k in range(p["layers"]):
        for j in range(p["side"]):
            for i in range(p["side"]):
                at = []
                for n in (i, j, k):
                    at.append(r + 0.001 + spacing * n + 0.001 * scatter(seed))
                v = [0.2 * scatter(seed) - 0.1, 0.2 * scatter(seed) - 0.1, 0.0]
                centres.append(at)
                velocities.append(v)
    count = len(centres)
    out_int = p["duration"] / p["frames"]
    side = p["box"]
    model = {"model": {
        "title": f"Impact peers: {count} Hertz spheres settling in a box",
        "steps": [{"name": "settle", "duration": p["duration"], "output_interval": out_int}],
        "particles": {
            "gravity": [0, 0, -p["gravity"]],
            "groups": [{"name": "beads", "radius": r, "density": p["density"],
                        "spheres": [{"position": x, "velocity": v}
                                    for x, v in zip(centres, velocities)]}],
            "walls": [
                {"name": "floor", "point": [0, 0, 0], "normal": [0, 0, 1]},
                {"name": "west", "point": [0, 0, 0], "normal": [1, 0, 0]},
                {"name": "east", "point": [side, 0, 0], "normal": [-1, 0, 0]},
                {"name": "south", "point": [0, 0, 0], "normal": [0, 1, 0]},
                {"name": "north", "point": [0, side, 0], "normal": [0, -1, 0]},
            ],
            "law": {"kind": "hertz", "E": p["E"], "nu": p["nu"]},
            "time_step": {"dt": p["dt"]},
            "listed_collisions": 10,
        },
    }}
    with open(os.path.join(out_dir, "spheres.json"), "w") as f:
        json.dump(model, f)

    # LIGGGHTS: the same spheres from a data file, the same walls as granular walls, the
    # same law (Hertz, restitution 1 so no damping, no friction: Impact's `hertz`).
    top = max(x[2] for x in centres) + 2 * r
    data = [
        "Impact peers: spheres settling in a box", "",
        f"{count} atoms", "1 atom types", "",
        f"0 {side:.12g} xlo xhi", f"0 {side:.12g} ylo yhi", f"0 {top:.12g} zlo zhi", "",
        "Atoms", "",
    ]
    # atom_style granular: id type diameter density x y z
    for n, x in enumerate(centres):
        data.append(f"{n + 1} 1 {2 * r:.12g} {p['density']:.12g} {x[0]:.17g} {x[1]:.17g} {x[2]:.17g}")
    data += ["", "Velocities", ""]
    # id vx vy vz wx wy wz
    for n, v in enumerate(velocities):
        data.append(f"{n + 1} {v[0]:.17g} {v[1]:.17g} {v[2]:.17g} 0 0 0")
    with open(os.path.join(out_dir, "spheres.data"), "w") as f:
        f.write("\n".join(data) + "\n")

    steps = round(p["duration"] / p["dt"])
    every = steps // p["frames"]
    script = f"""# Impact peers: {count} Hertz spheres settling in a box (generated by bench/peers/gen.py)
atom_style granular
atom_modify map array
boundary f f fm
newton off
communicate single vel yes
units si
read_data spheres.data
neighbor {0.2 * r:.12g} bin
neigh_modify delay 0
fix m1 all property/global youngsModulus peratomtype {p['E']:.12g}
fix m2 all property/global poissonsRatio peratomtype {p['nu']:.12g}
fix m3 all property/global coefficientRestitution peratomtypepair 1 1.0
fix m4 all property/global coefficientFriction peratomtypepair 1 0.0
pair_style gran model hertz tangential no_history
pair_coeff * *
timestep {p['dt']:.12g}
fix gravi all gravity {p['gravity']:.12g} vector 0.0 0.0 -1.0
fix floor all wall/gran model hertz tangential no_history primitive type 1 zplane 0.0
fix west all wall/gran model hertz tangential no_history primitive type 1 xplane 0.0
fix east all wall/gran model hertz tangential no_history primitive type 1 xplane {side:.12g}
fix south all wall/gran model hertz tangential no_history primitive type 1 yplane 0.0
fix north all wall/gran model hertz tangential no_history primitive type 1 yplane {side:.12g}
fix integr all nve/sphere
thermo {every}
thermo_style custom step atoms ke
dump frames all custom {every} spheres.dump id x y z vx vy vz
run {steps}
"""
    with open(os.path.join(out_dir, "spheres.in"), "w") as f:
        f.write(script)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: gen.py OUT_DIR REPO_ROOT")
    out_dir, repo = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    bars(out_dir, repo)
    block(out_dir)
    spheres(out_dir)


if __name__ == "__main__":
    main()
