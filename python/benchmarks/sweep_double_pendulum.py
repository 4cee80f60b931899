"""200 variations of the double pendulum, serially and on Ray: the speed-up of bead.sweep.

    python python/benchmarks/sweep_double_pendulum.py [RUNS] [WORKERS]

Each variation moves the lower bob to another starting angle (scenes/double_pendulum.toml, 10 s
of RK4 at 1 ms). Ray starts a local instance with WORKERS CPUs (default: all); on a cluster,
start Ray there and call ray.init(address=...) before bead.sweep — nothing else changes.
Prints the wall time of each backend (serial, a local process pool, Ray), the runs per second
and the speed-up.
"""

from __future__ import annotations

import math
import os
import sys
import time
from pathlib import Path

import numpy as np

import bead

ROOT = Path(__file__).resolve().parents[2]


def main(runs: int, workers: int) -> None:
    scene = bead.Scene.load(ROOT / "scenes" / "double_pendulum.toml")
    angles = np.linspace(-math.pi / 2, math.pi / 2, runs)
    variations = [
        {"particles.b.position": [1.0 + math.cos(a), math.sin(a)]} for a in angles
    ]
    print(f"{runs} runs of {scene.data['name']!r}, {os.cpu_count()} CPUs, {workers} workers")
    start = time.perf_counter()
    serial = bead.sweep(scene, variations, backend="serial")
    t_serial = time.perf_counter() - start

    start = time.perf_counter()
    pool = bead.sweep(scene, variations, backend="processes", workers=workers)
    t_pool = time.perf_counter() - start

    import ray

    start = time.perf_counter()
    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    t_init = time.perf_counter() - start
    start = time.perf_counter()
    on_ray = bead.sweep(scene, variations, backend="ray")
    t_ray = time.perf_counter() - start
    ray.shutdown()

    assert np.array_equal(serial["energy_end"], on_ray["energy_end"]), "runs differ"
    assert np.array_equal(serial["energy_end"], pool["energy_end"]), "runs differ"
    print(f"serial: {t_serial:7.2f} s  ({runs / t_serial:6.1f} runs/s)")
    print(f"processes: {t_pool:7.2f} s  ({runs / t_pool:6.1f} runs/s), speed-up {t_serial / t_pool:.2f}")
    print(f"ray:    {t_ray:7.2f} s  ({runs / t_ray:6.1f} runs/s), plus {t_init:.2f} s to start Ray")
    print(f"speed-up {t_serial / t_ray:.2f} (with Ray's start-up: {t_serial / (t_ray + t_init):.2f})")


if __name__ == "__main__":
    main(
        int(sys.argv[1]) if len(sys.argv) > 1 else 200,
        int(sys.argv[2]) if len(sys.argv) > 2 else (os.cpu_count() or 1),
    )
