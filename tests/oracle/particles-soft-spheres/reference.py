#!/usr/bin/env python3
"""Writes case.json and model.json of the head-on soft-sphere case of soft-spheres.md
(standard library only): 40 steps per contact against the hard-sphere velocities and the
half period of the reduced-mass oscillator. The glancing case is particles-glancing.

Run: python3 reference.py   (from this folder)
"""
import json
import math

# Head on: 1 kg at 1 m/s meets 2 kg at -0.5 m/s, D = 0.2 m, k = 1000 N/m.
M1, M2, U1, U2, K = 1.0, 2.0, 1.0, -0.5, 1000.0
MU = M1 * M2 / (M1 + M2)
U = U1 - U2


def main():
    # Hard spheres: the impulse along the line of centres reverses the relative velocity.
    v1 = U1 - 2 * M2 / (M1 + M2) * U
    v2 = U2 + 2 * M1 / (M1 + M2) * U
    tau = math.pi * math.sqrt(MU / K)
    kinetic = 0.5 * M1 * U1 ** 2 + 0.5 * M2 * U2 ** 2
    band = (math.pi / 40) ** 2 / 4
    probe = lambda i: {"command": "solve.probe", "params": {"step": "run", "particles": [i]},
                       "pointer": "/particles/0/velocity/0"}
    reason_v = (f"velocity Verlet at 40 steps per contact keeps the energy within the band "
                f"(pi/N)^2/4 = {band:.1e} in contact; the kink at first touch leaves at most "
                f"that in the outgoing speeds")
    quantities = [
        {"id": "v1", "quantity": "velocity of the 1 kg sphere after the collision (m/s), "
         "hard spheres: v1 - 2 m2/(m1+m2) u", "measure": probe(0), "value": v1,
         "tolerance": {"relative": 1.5e-3}, "reason": reason_v},
        {"id": "v2", "quantity": "velocity of the 2 kg sphere after the collision (m/s), "
         "hard spheres: v2 + 2 m1/(m1+m2) u", "measure": probe(1), "value": v2,
         "tolerance": {"relative": 1.5e-3}, "reason": reason_v},
        {"id": "duration", "quantity": "contact duration (s): half a period pi sqrt(mu/k)",
         "measure": {"from": "solve", "pointer": "/particles/collisions/0/duration"},
         "value": tau, "tolerance": {"relative": 6e-3},
         "reason": "touch and release are interpolated linearly in the overlap between "
         "increments; at the release the overlap curves, an error of a fraction of "
         "(pi/N)^2 = 6e-3 of tau"},
        {"id": "start", "quantity": "first touch (s): the 0.8 m gap closing at 1.5 m/s",
         "measure": {"from": "solve", "pointer": "/particles/collisions/0/first_contact"},
         "value": 0.8 / U, "tolerance": {"relative": 1e-12},
         "reason": "free flight is exact in velocity Verlet and the overlap is linear in "
         "time before the touch: only round-off remains"},
        {"id": "kinetic", "quantity": "kinetic energy after the collision (J): all of the "
         "start's, the contact being elastic",
         "measure": {"from": "solve", "pointer": "/energy/kinetic"}, "value": kinetic,
         "tolerance": {"relative": 3e-3}, "reason": "twice the speeds' tolerance: the energy "
         "band of velocity Verlet at 40 steps per contact"},
    ]
    model = {"model": {
        "title": "Soft spheres head on: 1 kg at 1 m/s meets 2 kg at -0.5 m/s, k = 1000 N/m",
        "steps": [{"name": "run", "duration": 1.2, "output_interval": 0.1}],
        "particles": {
            "dimension": 1,
            "groups": [
                {"name": "light", "mass": M1, "radius": 0.1,
                 "spheres": [{"position": [0, 0, 0], "velocity": [U1, 0, 0]}]},
                {"name": "heavy", "mass": M2, "radius": 0.1,
                 "spheres": [{"position": [1, 0, 0], "velocity": [U2, 0, 0]}]},
            ],
            "law": {"kind": "hooke", "k": K},
            "time_step": {"steps_per_contact": 40},
        },
    }}
    case = {
        "title": "Soft spheres: head-on collision at 40 steps per contact",
        "kind": "theory",
        "source": "soft-spheres.md (a classical-mechanics lesson on momentum and "
        "collisions): hard-sphere velocities and the half period pi sqrt(mu/k) of the "
        "reduced-mass oscillator; values by reference.py in this folder",
        "quantities": quantities,
    }
    write(".", case, model)


def write(folder, case, model):
    with open(f"{folder}/case.json", "w") as f:
        json.dump(case, f, indent=1, ensure_ascii=False)
        f.write("\n")
    with open(f"{folder}/model.json", "w") as f:
        json.dump(model, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
