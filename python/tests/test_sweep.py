"""Parameter sweeps: paths into the scene, grids and lists, on local processes and on Ray."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import bead
from bead.sweep import _set

from test_physics import crossings


def period(result: dict[str, Any], k: int) -> float:
    upward = crossings(result["t"][k], result["bob.x"][k])
    return float(np.mean(np.diff(upward)))


def on_rod(length: float, angle: float = 0.01) -> list[float]:
    """The bob's position on a rod of `length` from the pivot, `angle` from the vertical."""
    return [length * math.sin(angle), -length * math.cos(angle)]


def small_swing() -> bead.Scene:
    scene = bead.Scene("pendulum", dt=1e-3, duration=8.0, output_every=1)
    scene.particle("pivot", [0.0, 0.0], mass=math.inf)
    scene.particle("bob", on_rod(1.0), mass=1.0)
    scene.force("gravity", g=[0.0, -9.81])
    scene.constraint("distance", between=["pivot", "bob"], name="rod")
    return scene


@pytest.mark.parametrize("backend", ["serial", "processes"])
def test_a_sweep_over_rod_lengths_gives_periods_that_scale_as_the_root(backend: str) -> None:
    lengths = [0.5, 1.0, 2.0]
    # Setting the bob's position with the rod's length keeps the rod's start consistent (on the
    # rod, not 0.005 % off it as (0.01 L, −L) would be: that start warned).
    variations = [
        {"constraints.rod.length": length, "particles.bob.position": on_rod(length)}
        for length in lengths
    ]
    table = bead.sweep(small_swing(), variations, outputs=["t", "bob.x"], backend=backend)
    assert list(table["constraints.rod.length"]) == lengths
    assert table["completed"].all() and table["error"] == [None] * 3
    for k, length in enumerate(lengths):
        expected = 2.0 * math.pi * math.sqrt(length / 9.81)
        # Amplitude 0.01 rad: the finite-amplitude correction is 6e-6.
        assert abs(period(table, k) / expected - 1.0) < 2e-5, (length, period(table, k))


def test_a_grid_runs_every_combination(scenes: Path) -> None:
    table = bead.sweep(
        scenes / "pendulum.toml",
        {"simulation.dt": [1e-3, 2e-3], "simulation.duration": [0.1, 0.2, 0.3]},
        backend="serial",
    )
    assert list(table["simulation.dt"]) == [1e-3] * 3 + [2e-3] * 3
    np.testing.assert_allclose(table["t_end"], [0.1, 0.2, 0.3] * 2, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(table["steps"], [100, 200, 300, 50, 100, 150])


def test_paths_that_do_not_exist_are_named() -> None:
    data = small_swing().data
    with pytest.raises(KeyError, match="no entry 'spring'"):
        _set(data, "constraints.spring.length", 1.0)
    with pytest.raises(KeyError, match="has no bodies"):
        _set(data, "bodies.wheel.mass", 1.0)
    with pytest.raises(KeyError, match="is a value"):
        _set(data, "simulation.dt.x", 1.0)
    _set(data, "particles.1.mass", 3.0)
    assert data["particles"][1]["mass"] == 3.0
    with pytest.raises(ValueError, match="backend"):
        bead.sweep(small_swing(), [{}], backend="threads")


def test_failed_runs_stay_in_the_table() -> None:
    scene = small_swing()
    scene.constraint("nail", point="bob", name="held")
    # Nailed 1.1 m from where the bob starts: the sweep warns, and the run fails.
    with pytest.warns(bead.OffConstraintsWarning, match="1 of 1 runs"):
        table = bead.sweep(scene, [{"constraints.held.at": [0.5, 0.0]}], backend="serial")
    assert table["completed"][0] == False  # noqa: E712 (a numpy bool)
    assert "held" in table["error"][0]


def test_on_a_local_ray_instance_with_two_workers() -> None:
    if os.environ.get("BEAD_REQUIRE_RAY"):  # .ci/run installs Ray and sets this
        import ray
    else:
        ray = pytest.importorskip("ray", reason="pip install ray to run this test")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        lengths = [0.5, 1.0, 2.0, 4.0]
        variations = [
            {"constraints.rod.length": n, "particles.bob.position": on_rod(n)} for n in lengths
        ]
        table = bead.sweep(small_swing(), variations, outputs=["t", "bob.x"], backend="ray")
        assert ray.cluster_resources()["CPU"] == 2  # type: ignore[no-untyped-call]
    finally:
        ray.shutdown()
    for k, length in enumerate(lengths):
        expected = 2.0 * math.pi * math.sqrt(length / 9.81)
        assert abs(period(table, k) / expected - 1.0) < 2e-5
