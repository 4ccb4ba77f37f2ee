#!/usr/bin/env python3
"""Writes case.json and model.json of the steel-ball case from the formulas of Borovin and
Lapshin (2018), "Generalised Hertz-Hunt-Crossley collision model" (standard library only).

The ball (m = 0.1 kg, c = 1.7135e10 N/m^1.5, n = 3/2, b = 0.075 s/m, d = 0.077) hits a
massive plate at 1 to 5 m/s. Restitution: the root of eq. (18). Largest deformation: the
closed form of eq. (10). Contact duration: the quadratures (11) and (16) over the first
integrals (5) and (12), with x = x_max (1 - s^2) to remove the inverse square root.

Run: python3 reference.py   (from this folder)
"""
import json
import math

M, R, C, N, B, D = 0.1, 0.01452, 1.7135e10, 1.5, 0.075, 0.077
SPEEDS = [1.0, 2.0, 3.0, 4.0, 5.0]
DT = 3.5e-8  # at least 2200 increments per contact at every speed


def bisect(f, lo, hi):
    f_lo = f(lo)
    assert f_lo * f(hi) <= 0.0
    for _ in range(120):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if (f(mid) > 0.0) == (f_lo > 0.0):
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def gauss_legendre(n):
    rule = []
    for i in range(1, n + 1):
        x = math.cos(math.pi * (i - 0.25) / (n + 0.5))
        for _ in range(100):
            p0, p1 = 1.0, x
            for k in range(2, n + 1):
                p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
            dp = n * (x * p1 - p0) / (x * x - 1.0)
            step = p1 / dp
            x -= step
            if abs(step) < 1e-16:
                break
        rule.append((x, 2.0 / ((1.0 - x * x) * dp * dp)))
    return rule


RULE = gauss_legendre(16)


def integrate(g, pieces=60):
    h = 1.0 / pieces
    total = 0.0
    for p in range(pieces):
        a = p * h
        for x, w in RULE:
            total += w * 0.5 * h * g(a + 0.5 * h * (x + 1.0))
    return total


def potential(x):
    return C * x ** (N + 1.0) / (N + 1.0)


def theory(speed, b=B, d=D):
    v = b * speed  # the paper's dimensionless speed
    eq18 = lambda k: (v * (1 + k) + (1 - d) * math.log1p(-k * v / (1 - d))
                      - (1 + d) * math.log1p(v / (1 + d)))
    k = bisect(eq18, 0.0, (1 - d) / v * (1 - 1e-15))
    x_max = ((N + 1) * M * (v - (1 + d) * math.log1p(v / (1 + d))) / (C * b * b)) ** (1 / (N + 1))
    phi = lambda u: (1 + d) * math.log1p(u / (1 + d)) - u
    psi = lambda u: (1 - d) * math.log1p(u / (1 - d)) - u

    def v_compression(x):
        rhs = phi(v) + b * b * potential(x) / M
        return bisect(lambda u: phi(u) - rhs, 0.0, v)

    def v_restitution(x):
        rhs = b * b * (potential(x) - potential(x_max)) / M
        return bisect(lambda u: psi(u) - rhs, -(1 - d) * (1 - 1e-15), 0.0)

    def phase(v_of):
        return integrate(lambda s: 2 * x_max * s * b / abs(v_of(x_max * (1 - s * s))))

    return k, x_max, phase(v_compression) + phase(v_restitution)


def main():
    spheres = []
    quantities = []
    for i, speed in enumerate(SPEEDS):
        # Gaps that make the balls touch in the order of their speeds (2, 4, ... µs).
        gap = speed * 2e-6 * (i + 1)
        spheres.append({"position": [R + gap, 0.05 * i, 0], "velocity": [-speed, 0, 0]})
        k, x_max, duration = theory(speed)
        at = f"/particles/collisions/{i}"
        quantities += [
            {
                "id": f"restitution_{speed:g}",
                "quantity": f"coefficient of restitution at {speed:g} m/s: the root of eq. (18)",
                "measure": {"from": "solve", "pointer": f"{at}/restitution"},
                "value": k,
                "tolerance": {"relative": 1e-5},
                "reason": "the viscous and dry terms act at the end of each half kick, a lag of "
                "about dt/4; it shifts the compression and the restitution alike and cancels "
                "in the restitution to about 1e-7 at 2200 increments per contact",
            },
            {
                "id": f"max_deformation_{speed:g}",
                "quantity": f"largest deformation at {speed:g} m/s (m): eq. (10)",
                "measure": {"from": "solve", "pointer": f"{at}/max_overlap"},
                "value": x_max,
                "tolerance": {"relative": 1e-4},
                "reason": "the lag of dt/4 of the dry term leaves an impulse error near "
                "d f(x_max) dt/4 at the turning point: a few 1e-5 of x_max at this step, "
                "first order (halves with the step)",
            },
            {
                "id": f"duration_{speed:g}",
                "quantity": f"contact duration at {speed:g} m/s (s): quadratures (11) + (16)",
                "measure": {"from": "solve", "pointer": f"{at}/duration"},
                "value": duration,
                "tolerance": {"relative": 2e-4},
                "reason": "the same first-order lag (about 5e-5 at this step) and the linear "
                "interpolation of touch and release between increments",
            },
        ]
    law = {"kind": "hertz_hunt_crossley", "c": C, "n": N, "b": B, "d": D}
    model = {
        "model": {
            "title": "A steel ball on a massive plate at 1 to 5 m/s (Borovin and Lapshin 2018)",
            "steps": [{"name": "impact", "duration": 3e-4, "output_interval": 1e-5}],
            "particles": {
                "dimension": 2,
                "groups": [{"name": "balls", "mass": M, "radius": R, "spheres": spheres}],
                "walls": [{"name": "plate", "point": [0, 0, 0], "normal": [1, 0, 0]}],
                "law": law,
                "time_step": {"dt": DT},
            },
        }
    }
    case = {
        "title": "Generalised Hertz-Hunt-Crossley impact of a steel ball on a massive plate",
        "kind": "theory",
        "source": "G.K. Borovin, V.V. Lapshin, Generalised Hertz-Hunt-Crossley collision "
        "model, Herald of the Bauman Moscow State Tech. Univ., Nat. Sci., 2018, no. 6, "
        "pp. 18-30, DOI 10.18698/1812-3368-2018-6-18-30: eqs. (10), (11), (16), (18); the "
        "values are computed by reference.py in this folder",
        "quantities": quantities,
    }
    with open("case.json", "w") as f:
        json.dump(case, f, indent=1, ensure_ascii=False)
        f.write("\n")
    with open("model.json", "w") as f:
        json.dump(model, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
