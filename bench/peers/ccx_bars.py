#!/usr/bin/env python3
"""Read CalculiX's answers for the colliding bars from bars.history.dat (written by the
*CONTACT PRINT, *EL PRINT and *NODE PRINT requests of bars.history.inp, every increment)
and print them as `key value` lines:

  last_contact   the last time a node of the struck bar's end carries contact pressure
  peak_force     the largest compressive stress of the struck bar's first element times its
                 cross-section (1 x 1): the interface force, read h/2 from the interface
  force_mean     that force's mean over t = 0.02 to 0.18 (the plateau, between the fronts)
  v_b_end        the struck bar's far end's axial velocity at the step's end
  v_b_mean       its mean over the free flight after 0.22 (the release front has passed)
  increments     the increments CalculiX took

    ccx_bars.py bars.history.dat
Standard library only.
"""

import re
import sys

AREA = 1.0  # the bars' cross-section, 1 x 1 (tests/oracle/explicit-bars/model.json)


def number(text):
    # CalculiX writes three-digit exponents without the E (9.28-168): such values are 0 here.
    try:
        return float(text)
    except ValueError:
        return 0.0


def main():
    lines = open(sys.argv[1]).read().split("\n")
    pressure, stress, struck = {}, {}, {}
    for i, line in enumerate(lines):
        head = re.search(r"(contact stress|stresses|velocities) .* time\s+(\S+)", line)
        if not head:
            continue
        t = float(head.group(2))
        rows = []
        j = i + 2
        while j < len(lines) and lines[j].strip():
            rows.append(lines[j].split())
            j += 1
        if head.group(1) == "contact stress":
            pressure[t] = max((number(r[1]) for r in rows), default=0.0)
        elif head.group(1) == "stresses":
            stress[t] = number(rows[0][2])
        else:
            # NFAR holds the striker's far end, then the struck bar's.
            struck[t] = number(rows[1][1])
    times = [t for t in sorted(struck) if t > 0.0]
    touching = [t for t in sorted(pressure) if pressure[t] > 0.0]
    late = [struck[t] for t in times if t > 0.22]
    print(f"last_contact {touching[-1] if touching else 'nan'}")
    print(f"peak_force {max(-s for s in stress.values()) * AREA}")
    plateau = [-s for t, s in stress.items() if 0.02 < t < 0.18]
    print(f"force_mean {sum(plateau) / len(plateau) * AREA if plateau else 'nan'}")
    print(f"v_b_end {struck[times[-1]]}")
    print(f"v_b_mean {sum(late) / len(late) if late else 'nan'}")
    print(f"increments {len(times)}")  # one print per increment after t = 0


if __name__ == "__main__":
    main()
