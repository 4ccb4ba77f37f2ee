#!/usr/bin/env python3
"""Writes case.json and model.json of the two limits of the Hertz-Hunt-Crossley law
(standard library only), for the paper's steel ball (m = 0.1 kg, R = 14.52 mm,
c = 1.7135e10 N/m^1.5) hitting a massive plate at 3 m/s:

- pure Hertz (b = d = 0) keeps the energy: restitution 1, the largest deformation from
  m V^2 / 2 = c x^(5/2) / (5/2), the duration 2.9432 x_max / V (Johnson, Contact
  Mechanics, par. 11.4; the factor is 2 sqrt(pi) Gamma(7/5) / Gamma(9/10));
- d >= 1 (here b = 0.075 s/m, d = 1.5): perfectly inelastic (Borovin and Lapshin 2018): the
  ball stops at x_max of eq. (10) and rests there, restitution exactly 0, velocity exactly 0.

Run: python3 reference.py   (from this folder)
"""
import json
import math

M, R, C, N = 0.1, 0.01452, 1.7135e10, 1.5
SPEED, B, D_STOP = 3.0, 0.075, 1.5


def main():
    x_hertz = ((N + 1) * M * SPEED ** 2 / (2 * C)) ** (1 / (N + 1))
    factor = 2 * math.sqrt(math.pi) * math.gamma(1 + 1 / (N + 1)) / math.gamma(0.5 + 1 / (N + 1))
    t_hertz = factor * x_hertz / SPEED
    v = B * SPEED
    x_stop = ((N + 1) * M * (v - (1 + D_STOP) * math.log1p(v / (1 + D_STOP))) / (C * B * B)) ** (1 / (N + 1))
    dt = t_hertz / 400  # 400 increments per elastic contact
    q = lambda id, what, measure, value, tol, reason: {
        "id": id, "quantity": what, "measure": measure, "value": value, "tolerance": tol, "reason": reason}
    band = "velocity Verlet at 400 steps per contact keeps a Hertz contact's energy to the band " \
           "(pi/400)^2/4 = 1.5e-5 and gives it back after"
    quantities = [
        q("elastic_restitution", "restitution of the pure Hertz impact: 1",
          {"from": "solve", "pointer": "/particles/collisions/0/restitution"}, 1.0,
          {"absolute": 1e-4}, band),
        q("elastic_max_deformation", "largest deformation of the pure Hertz impact (m)",
          {"from": "solve", "pointer": "/particles/collisions/0/max_overlap"}, x_hertz,
          {"relative": 1e-4}, "the peak falls between increments: (pi/400)^2/8 = 8e-6"),
        q("elastic_duration", "duration of the pure Hertz impact (s): 2.9432 x_max / V",
          {"from": "solve", "pointer": "/particles/collisions/0/duration"}, t_hertz,
          {"relative": 1e-3}, "touch and release interpolated linearly between increments"),
        q("stopped_restitution", "restitution with d = 1.5: exactly 0",
          {"from": "solve", "pointer": "/particles/collisions/1/restitution"}, 0.0,
          {"absolute": 0.0}, "the dry term's stop is exact: the rate after the stop is set to "
          "zero, not approached"),
        q("stopped_velocity", "the stopped ball's velocity at the end (m/s): exactly 0",
          {"command": "solve.probe", "params": {"step": "impact", "particles": [1]},
           "pointer": "/particles/0/velocity/0"}, 0.0, {"absolute": 0.0},
          "at rest in contact, 0 lies in the dry term's set: no force acts and the velocity "
          "against an axis-aligned plate stays exactly zero"),
        q("stopped_deformation", "the stopped ball's deformation (m): x_max of eq. (10)",
          {"from": "solve", "pointer": "/particles/collisions/1/max_overlap"}, x_stop,
          {"relative": 1e-4}, "the lag of dt/4 of the dry term in compression, first order: "
          "an impulse error near d f(x_max) dt/4, under 1e-4 of x_max at this step"),
        q("stopped_rests_at_deepest", "the stopped ball's centre at the end (m): R - x_max",
          {"command": "solve.probe", "params": {"step": "impact", "particles": [1]},
           "pointer": "/particles/0/position/0"}, R - x_stop,
          {"absolute": 1e-4 * x_stop}, "at rest where it stopped: the deformation's tolerance"),
    ]
    law = lambda b, d: {"kind": "hertz_hunt_crossley", "c": C, "n": N, "b": b, "d": d}
    model = {"model": {
        "title": "The steel ball at 3 m/s on a plate: pure Hertz, and d = 1.5",
        "steps": [{"name": "impact", "duration": 3e-4, "output_interval": 1e-5}],
        "particles": {
            "dimension": 2,
            "groups": [
                {"name": "elastic", "mass": M, "radius": R,
                 "spheres": [{"position": [R + 1e-6, 0, 0], "velocity": [-SPEED, 0, 0]}]},
                {"name": "stopped", "mass": M, "radius": R,
                 "spheres": [{"position": [R + 2e-6, 0.05, 0], "velocity": [-SPEED, 0, 0]}]},
            ],
            "walls": [{"name": "plate", "point": [0, 0, 0], "normal": [1, 0, 0]}],
            "law": {"kind": "hertz", "c": C, "n": N},
            "laws": [{"between": ["stopped", "plate"], "law": law(B, D_STOP)}],
            "time_step": {"dt": dt},
        },
    }}
    case = {"title": "Hertz-Hunt-Crossley limits: pure Hertz keeps the energy, d >= 1 stops the ball",
            "kind": "theory",
            "source": "H. Hertz, J. reine angew. Math. 92 (1882); K.L. Johnson, Contact "
            "Mechanics, Cambridge 1985, par. 11.4; G.K. Borovin, V.V. Lapshin, Herald of the "
            "Bauman Moscow State Tech. Univ., Nat. Sci., 2018, no. 6, eq. (10); values by "
            "reference.py in this folder", "quantities": quantities}
    for name, doc in (("case.json", case), ("model.json", model)):
        with open(name, "w") as f:
            json.dump(doc, f, indent=1, ensure_ascii=False)
            f.write("\n")


if __name__ == "__main__":
    main()
