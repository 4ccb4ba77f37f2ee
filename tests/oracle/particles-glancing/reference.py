#!/usr/bin/env python3
"""Writes case.json and model.json of the glancing soft-sphere collision of soft-spheres.md
(standard library only): equal 1 kg spheres, the target at rest at the origin, the other
from (-1, 0.1) at (1, 0) m/s, D = 0.2 m, k = 1000 N/m, 40 steps per contact.

In the centre-of-mass frame the spheres turn by the scattering angle of the potential
V(r) = k (D - r)^2 / 2 (r < D) (Landau and Lifshitz, Mechanics, par. 18):
chi = pi - 2 [arcsin(b/D) + int_{r_min}^{D} b dr / (r^2 sqrt(1 - b^2/r^2 - V/E))].
With equal masses and the target at rest the incomer leaves at chi/2 above the axis and the
target at (pi - chi)/2 below it: a right angle between them, whatever k is. Both tangents,
v1y/v1x and v2x/(-v2y), must equal tan(chi/2). Hard spheres (k -> infinity): chi/2 = 60 deg.

Run: python3 reference.py   (from this folder)
"""
import json
import math

K, D, B, MU, U = 1000.0, 0.2, 0.1, 0.5, 1.0


def scattering_angle():
    e = 0.5 * MU * U * U
    g = lambda r: 1 - B * B / (r * r) - 0.5 * K * (D - r) ** 2 / e
    lo, hi = 1e-12 * D, D
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if g(mid) > 0:
            hi = mid
        else:
            lo = mid
    r_min = 0.5 * (lo + hi)
    # Composite 8-point Gauss-Legendre in t, r = r_min + (D - r_min) t^2.
    xs = [0.183434642495650, 0.525532409916329, 0.796666477413627, 0.960289856497536]
    ws = [0.362683783378362, 0.313706645877887, 0.222381034453374, 0.101228536290376]
    pieces, total = 400, 0.0
    for p in range(pieces):
        mid, h = (p + 0.5) / pieces, 1.0 / pieces
        for x, w in zip(xs, ws):
            for t in (mid - 0.5 * h * x, mid + 0.5 * h * x):
                r = r_min + (D - r_min) * t * t
                total += w * 0.5 * h * 2 * (D - r_min) * t * B / (r * r * math.sqrt(max(g(r), 0)))
    return math.pi - 2 * (math.asin(B / D) + total)


def main():
    chi = scattering_angle()
    tan = math.tan(chi / 2)
    probe = lambda i, k: {"command": "solve.probe", "params": {"step": "run", "particles": [i]},
                          "pointer": f"/particles/0/velocity/{k}"}
    band = "the angle's error is bounded by about the energy band (pi/40)^2/4 = 1.5e-3 rad " \
           "of velocity Verlet at 40 steps per contact; d tan = (1 + tan^2) d angle gives 3e-3 " \
           "relative on the tangent"
    quantities = [
        {"id": "v1x", "quantity": "incomer's x velocity after (m/s): u cos^2(chi/2)",
         "measure": probe(0, 0), "value": U * math.cos(chi / 2) ** 2,
         "tolerance": {"relative": 3e-3}, "reason": band},
        {"id": "incomer_tangent",
         "quantity": f"tangent of the incomer's deflection: tan(chi/2), chi/2 = {math.degrees(chi / 2):.4f} deg (hard spheres 60 deg)",
         "measure": dict(probe(0, 1), over="v1x"), "value": tan,
         "tolerance": {"relative": 3e-3}, "reason": band},
        {"id": "minus_v2y", "quantity": "target's velocity across the axis after, negated (m/s): u sin(chi/2) cos(chi/2)",
         "measure": dict(probe(1, 1), scale=-1.0), "value": U * math.sin(chi / 2) * math.cos(chi / 2),
         "tolerance": {"relative": 3e-3}, "reason": band},
        {"id": "right_angle",
         "quantity": "v2x / (-v2y) of the target: tan(chi/2) again, so the two leave at a right angle",
         "measure": dict(probe(1, 0), over="minus_v2y"), "value": tan,
         "tolerance": {"relative": 3e-3}, "reason": band},
    ]
    model = {"model": {
        "title": "Glancing soft spheres: equal 1 kg, impact parameter 0.1 m, D = 0.2 m, k = 1000 N/m",
        "steps": [{"name": "run", "duration": 2.0, "output_interval": 0.5}],
        "particles": {
            "dimension": 2,
            "groups": [{"name": "balls", "mass": 1.0, "radius": D / 2, "spheres": [
                {"position": [-1, B, 0], "velocity": [U, 0, 0]},
                {"position": [0, 0, 0]}]}],
            "law": {"kind": "hooke", "k": K},
            "time_step": {"steps_per_contact": 40},
        },
    }}
    case = {"title": "Soft spheres: glancing collision, deflection and the right angle",
            "kind": "theory",
            "source": "soft-spheres.md; classical scattering in the truncated harmonic "
            "potential (Landau and Lifshitz, Mechanics, par. 18); values by reference.py in "
            "this folder", "quantities": quantities}
    for name, doc in (("case.json", case), ("model.json", model)):
        with open(name, "w") as f:
            json.dump(doc, f, indent=1, ensure_ascii=False)
            f.write("\n")


if __name__ == "__main__":
    main()
