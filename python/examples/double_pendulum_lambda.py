"""The double pendulum's rod forces: λ of both rods over 10 s, and the energy that RK4 keeps.

    python python/examples/double_pendulum_lambda.py [OUT.png]

Runs scenes/double_pendulum.toml through the Python package and plots, with matplotlib, each
rod's λ (for a rod, the force it carries in newtons; negative is tension) and how far the upper
rod's length strays from 1 m.
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
    run = bead.load(ROOT / "scenes" / "double_pendulum.toml").run()
    c = run.constraints
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(8, 6))
    top.plot(c["t"], c["upper.lambda"], label="upper rod")
    top.plot(c["t"], c["lower.lambda"], label="lower rod")
    top.set_ylabel("λ (N)")
    top.legend()
    top.set_title("Double pendulum released from the horizontal")
    rod = (run.trajectory["a.x"] ** 2 + run.trajectory["a.y"] ** 2) ** 0.5 - 1.0
    bottom.plot(run.trajectory["t"], rod)
    bottom.set_ylabel("upper rod length − 1 (m)")
    bottom.set_xlabel("t (s)")
    fig.tight_layout()
    fig.savefig(out)
    s = run.summary
    print(f"{out}: {s['steps']} steps, max |C| {s['max_abs_C']:.2e}, "
          f"energy {s['energy_start']:.3e} → {s['energy_end']:.3e} J")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "double_pendulum_lambda.png")
