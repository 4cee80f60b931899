"""The corner of Jonquet, Nocent and Rémion (2008), fig. 1: a particle of mass 2 pushed into the
corner of g1 = x − y ≥ 0 and g2 = y ≥ 0 by f = (2, −1).

    python python/examples/corner.py [OUT.png]

Runs scenes/corner_m2.toml with Jonquet's algorithm and with Platt's, and plots y(t): Platt's
holds the particle for one step and then lets it through y < 0; Jonquet's slides it along y = 0,
as the paper's figures 4 and 5 show.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import bead  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def main(out: str) -> None:
    fig, (ys, active) = plt.subplots(2, 1, sharex=True, figsize=(8, 6))
    for method in ("jonquet", "platt"):
        run = bead.load(ROOT / "scenes" / "corner_m2.toml", inequality=method, duration=0.05).run()
        t = run.trajectory["t"]
        ys.plot(t, run.trajectory["p.y"], label=method)
        active.step(t, run.constraints["g2.active"], where="post", label=method)
        print(f"{method}: y at t = {t[-1]:.3f} s is {run.trajectory['p.y'][-1]:.3e} m")
    ys.axhline(0.0, color="grey", linewidth=0.5)
    ys.set_ylabel("y (m)")
    ys.legend()
    ys.set_title("Particle in the corner g1 = x − y ≥ 0, g2 = y ≥ 0, m = 2")
    active.set_ylabel("g2 active")
    active.set_xlabel("t (s)")
    fig.tight_layout()
    fig.savefig(out)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "corner.png")
