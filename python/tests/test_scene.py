"""Scenes built in Python: the scene format's names, saved as files `bead run` reads."""

from __future__ import annotations

import math
import threading
import time
from pathlib import Path

import numpy as np

import bead


def pendulum() -> bead.Scene:
    scene = bead.Scene("pendulum", dt=1e-3, duration=1.0, output_every=5)
    scene.particle("pivot", [0.0, 0.0], mass=math.inf)
    scene.particle("bob", np.array([0.6, -0.8]), mass=2.0, radius=0.05)
    scene.force("gravity", g=[0.0, -9.81])
    scene.constraint("distance", between=["pivot", "bob"], name="rod")
    return scene


def test_saved_scenes_load_to_the_same_run(tmp_path: Path) -> None:
    scene = pendulum()
    direct = scene.build().run()
    for file in ("p.toml", "p.json"):
        scene.save(tmp_path / file)
        again = bead.load(tmp_path / file).run()
        for column, values in direct.trajectory.items():
            np.testing.assert_array_equal(again.trajectory[column], values)
    reloaded = bead.Scene.load(tmp_path / "p.toml")
    assert reloaded.data["particles"][0]["mass"] == "infinity"
    assert reloaded.data["constraints"][0]["name"] == "rod"
    assert 'kind = "distance"' in scene.to_toml()


def test_the_simulation_writes_its_resolved_scene() -> None:
    sim = pendulum().build()
    text = sim.scene()
    # The rod's length, left to the geometry, is written out.
    assert "length = 1" in text
    assert bead.loads(text).constraints == ["rod"]
    assert sim.particles == ["pivot", "bob"] and sim.bodies == []
    assert "pendulum" in repr(sim)


def test_runs_continue_from_where_they_stopped() -> None:
    whole = pendulum().build().run(duration=1.0)
    sim = pendulum().build()
    first, second = sim.run(duration=0.5), sim.run(duration=0.5)
    assert abs(sim.time - 1.0) < 1e-12
    assert first.trajectory["t"][-1] == second.trajectory["t"][0]
    np.testing.assert_allclose(
        second.trajectory["bob.x"][-1], whole.trajectory["bob.x"][-1], rtol=0, atol=1e-12
    )
    assert len(first) == 101 and "Run" in repr(first)


def test_the_gil_is_released_while_the_engine_runs() -> None:
    sim = pendulum().build(duration=300.0, output_every=10000)
    ticks = 0
    done = threading.Event()

    def count() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            time.sleep(0.001)

    counter = threading.Thread(target=count)
    counter.start()
    try:
        start = time.perf_counter()
        before = ticks
        sim.run()
        elapsed = time.perf_counter() - start
        during = ticks - before
    finally:
        done.set()
        counter.join()
    # Holding the GIL for the whole run would leave the counter at most a tick or two.
    assert during > 20, (elapsed, during)
