#!/usr/bin/env python3
"""The colliding bars' accuracy table of bench/peers.sh: each code's answers against the
bars' theory (tests/oracle/explicit-bars/case.json: contact for 2L/c = 0.2, interface
force rho c A v0 / 2 = 0.05, the struck bar leaves at v0 = 0.1).

    bars_table.py IMPACT_ORACLE_OUTPUT CCX_ACCURACY
IMPACT_ORACLE_OUTPUT is what `impact oracle` printed for tests/oracle/explicit-bars;
CCX_ACCURACY is what ccx_bars.py printed. Standard library only.
"""

import sys


def impact_measured(path):
    """id -> measured value, from the oracle command's table."""
    found = {}
    for line in open(path):
        cols = line.split()
        if len(cols) >= 3 and cols[0] == "explicit-bars":
            found[cols[1]] = float(cols[2])
    return found


def ccx_measured(path):
    found = {}
    for line in open(path):
        key, value = line.split()
        found[key] = float(value)
    return found


def cell(value, theory):
    if value is None:
        return "not measured"
    return f"{value:.5g} ({100.0 * (value / theory - 1.0):+.2f}%)"


def main():
    ours, ccx = impact_measured(sys.argv[1]), ccx_measured(sys.argv[2])
    rows = [
        ("last contact, 2L/c", 0.2, ours.get("duration"), ccx.get("last_contact")),
        ("peak interface force, rho c A v0 / 2", 0.05, ours.get("force"), ccx.get("peak_force")),
        ("interface force, mean over t = 0.02 to 0.18", 0.05, None, ccx.get("force_mean")),
        ("struck bar's far end velocity at t = 0.3", 0.1, ours.get("v_b"), ccx.get("v_b_end")),
        ("the same, mean over t = 0.22 to 0.3", 0.1, None, ccx.get("v_b_mean")),
    ]
    print("| bars: quantity | theory | Impact | CalculiX |")
    print("| --- | --- | --- | --- |")
    for name, theory, a, b in rows:
        print(f"| {name} | {theory:g} | {cell(a, theory)} | {cell(b, theory)} |")


if __name__ == "__main__":
    main()
