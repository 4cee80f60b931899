"""A scene that starts off its constraints warns when built; ``assemble=True`` moves it onto them
(issue 28, item 10). And the README's Python example, which swept a rod's length alone and so
started its bobs off their rods, runs as written without a warning."""

from __future__ import annotations

import math
import re
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import bead

from test_sweep import period, small_swing

ROOT = Path(__file__).resolve().parents[2]
G = 9.81

# The bob 1.5 m from the nail, on a 1 m rod: 0.5 m off it, moving along it and across it.
OFF, MOVING = [0.9, -1.2], [0.8, 1.1]


def pendulum(position: list[float], velocity: list[float], **simulation: Any) -> bead.Scene:
    scene = bead.Scene("pendulum", dt=1e-3, duration=0.5, **simulation)
    scene.particle("nail", [0.0, 0.0], mass=math.inf)
    scene.particle("bob", position, velocity=velocity, mass=2.0)
    scene.force("gravity", g=[0.0, -G])
    scene.constraint("distance", between=["nail", "bob"], length=1.0, name="rod")
    return scene


def test_a_bob_off_its_rod_warns_when_built_and_the_summary_says_how_far() -> None:
    with pytest.warns(bead.OffConstraintsWarning, match=r"'rod' \|C\| = 5\.000e-1") as caught:
        sim = pendulum(OFF, MOVING).build()
    assert len(caught) == 1
    assert "assemble = true" in str(caught[0].message)
    # The warning points at the caller's line, not into the package.
    assert caught[0].filename == __file__
    with pytest.warns(bead.OffConstraintsWarning):
        bead.loads(pendulum(OFF, MOVING).to_toml())
    summary = sim.run().summary
    assert summary["initial_abs_C"] == pytest.approx(0.5, abs=1e-12)
    along = (OFF[0] * MOVING[0] + OFF[1] * MOVING[1]) / 1.5
    assert summary["initial_abs_Cdot"] == pytest.approx(abs(along), abs=1e-12)
    assert summary["assemble"] is False


def test_assemble_starts_the_bob_on_its_rod_as_a_scene_built_there() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", bead.OffConstraintsWarning)
        sim = pendulum(OFF, MOVING).build(assemble=True)
        q, v = sim.state.q, sim.state.v
        # The mass-weighted projection of one bob: along the rod, x L / |x|; the speed along
        # the rod removed, v − (v·x̂) x̂.
        n = np.array(OFF) / 1.5
        np.testing.assert_allclose(q[2:], n, rtol=0, atol=1e-12)
        np.testing.assert_allclose(v[2:], np.array(MOVING) - (n @ MOVING) * n, rtol=0, atol=1e-12)
        assert abs(math.hypot(*q[2:]) - 1.0) <= 1e-10  # |C| within Newton's tolerance
        assert abs(q[2:] @ v[2:]) <= 1e-10  # J q̇ = 0: moving along the circle
        assembled = sim.run()
        direct = pendulum(list(q[2:]), list(v[2:])).build().run()
    assert assembled.summary["initial_abs_C"] <= 1e-10
    assert assembled.summary["assemble"] is True
    for column in assembled.trajectory:
        np.testing.assert_array_equal(assembled.trajectory[column], direct.trajectory[column])


def test_a_sweep_of_rod_lengths_alone_warns_once_and_assemble_gives_the_periods() -> None:
    lengths = [0.5, 2.0]
    with pytest.warns(bead.OffConstraintsWarning, match="2 of 2 runs start off") as caught:
        table = bead.sweep(small_swing(), {"constraints.rod.length": lengths}, backend="serial")
    assert len(caught) == 1
    # small_swing's bob is 1 m from the pivot; each run starts |L − 1| off its rod.
    np.testing.assert_allclose(table["initial_abs_C"], [0.5, 1.0], rtol=0, atol=1e-12)
    assert all("'rod' |C|" in w for w in table["warning"])

    # Assembled, each bob moves along its rod to the new length, at the same 0.01 rad: the
    # periods are 2π √(L/g).
    with warnings.catch_warnings():
        warnings.simplefilter("error", bead.OffConstraintsWarning)
        table = bead.sweep(
            small_swing(),
            {"constraints.rod.length": lengths, "simulation.assemble": [True]},
            outputs=["t", "bob.x"],
            backend="serial",
        )
    assert table["warning"] == [None, None]
    assert (table["initial_abs_C"] <= 1e-10).all() and (table["max_abs_C"] < 1e-8).all()
    for k, length in enumerate(lengths):
        expected = 2.0 * math.pi * math.sqrt(length / G)
        assert abs(period(table, k) / expected - 1.0) < 2e-5, (length, period(table, k))


def test_a_start_that_cannot_be_assembled_raises_naming_the_constraints() -> None:
    scene = pendulum([0.0, -1.0], [0.0, 0.0], assemble=True)
    scene.constraint("nail", point="bob", at=[0.0, -3.0], name="held")
    with pytest.raises(bead.SceneError) as raised:
        scene.build()
    assert raised.value.field == "simulation.assemble"
    assert "'held'" in raised.value.message and "'rod'" in raised.value.message


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


def run_as_written(code: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Runs a documentation example from the repository's root, where its paths point, with a
    start off its constraints an error."""
    monkeypatch.chdir(ROOT)
    namespace: dict[str, Any] = {"bead": bead}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", bead.OffConstraintsWarning)
            exec(compile(code, "<example>", "exec"), namespace)
    finally:
        # A sweep on Ray (when installed) leaves its local instance: the Ray test starts its own.
        ray = sys.modules.get("ray")
        if ray is not None and ray.is_initialized():
            ray.shutdown()
    return namespace


def test_the_readme_python_example_runs_as_written_on_its_rods(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    readme = ROOT / "README.md"
    (example,) = [b for b in python_blocks(readme) if "bead.sweep(" in b]
    namespace = run_as_written(example, monkeypatch)
    table = namespace["table"]
    assert list(table["constraints.rod.length"]) == [0.5, 1.0, 2.0]
    assert (table["initial_abs_C"] <= 1e-10).all()
    assert (table["max_abs_C"] < 1e-6).all(), table["max_abs_C"]


def test_the_sweep_in_the_python_guide_runs_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    guide = ROOT / "docs" / "python.md"
    (example,) = [b for b in python_blocks(guide) if b.startswith("table = bead.sweep(")]
    table = run_as_written(example, monkeypatch)["table"]
    assert (table["initial_abs_C"] <= 1e-10).all()
    assert (table["max_abs_C"] < 1e-6).all(), table["max_abs_C"]
