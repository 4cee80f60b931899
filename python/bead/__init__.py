"""bead: constrained dynamics with exact constraints through Lagrange multipliers.

Load a scene file, run it, and read the results as numpy arrays::

    import bead

    sim = bead.load("scenes/double_pendulum.toml", duration=2.0)
    run = sim.run()
    t, tension = run.constraints["t"], run.constraints["upper.lambda"]

Build a scene in Python with the names of the scene format (``docs/scene-format.md``)::

    scene = bead.Scene("pendulum", dt=1e-3, duration=2.0)
    scene.particle("pivot", [0, 0], mass="infinity")
    scene.particle("bob", [1, 0], mass=1.0)
    scene.force("gravity", g=[0, -9.81])
    scene.constraint("distance", between=["pivot", "bob"], name="rod")
    sim = scene.build()

Sweep a parameter over many runs, locally or on a Ray cluster (``assemble`` moves each bob onto
its rod of the new length before the first step)::

    table = bead.sweep(
        "scenes/pendulum.toml",
        {"constraints.rod.length": [0.5, 1.0, 2.0], "simulation.assemble": [True]},
    )

Errors are exceptions: a bad scene raises :class:`SceneError` (with ``file``, ``line``,
``column``, ``field``, ``hint``), a failed step :class:`SimulationError` (with ``t``, ``step``,
``constraint``). A scene that starts off its constraints warns with
:class:`OffConstraintsWarning` when it is built (the setting ``assemble=True`` moves it onto
them).
"""

from __future__ import annotations

import json
import os
from typing import Any, Union

from . import _bead
from ._bead import (
    OffConstraintsWarning,
    Run,
    SceneError,
    Simulation,
    SimulationError,
    State,
    __version__,
)
from .scene import Scene
from .sweep import sweep

__all__ = [
    "OffConstraintsWarning",
    "Run",
    "Scene",
    "SceneError",
    "Simulation",
    "SimulationError",
    "State",
    "__version__",
    "load",
    "loads",
    "sweep",
]


def _settings(settings: dict[str, Any]) -> str | None:
    if not settings:
        return None
    return json.dumps(settings, allow_nan=False)


def load(path: Union[str, os.PathLike[str]], **settings: Any) -> Simulation:
    """Loads a scene file (``.toml``, or ``.json``) and builds its simulation.

    Keyword arguments replace keys of the scene's ``[simulation]`` table, with the same names
    and values: ``dt``, ``duration``, ``integrator`` ("rk4", "implicit-euler", ...), ``solver``
    ("cg", "sparse", ...), ``feedback={"ks": 100, "kd": 20}``, ``projection=True``,
    ``inequality``, ``output_every``, ``newton_tolerance``, ``assemble=True`` (move the start
    onto the constraints before the first step), ... An unknown key or a bad value raises
    :class:`SceneError`. A scene that starts off its constraints (further than 1e-6, or moving
    off faster than 1e-6 per second) warns with :class:`OffConstraintsWarning`.
    """
    return _bead.load(os.fspath(path), _settings(settings))


def loads(text: str, format: str = "toml", **settings: Any) -> Simulation:
    """Parses scene text (``format`` is "toml" or "json") and builds its simulation.

    Keyword arguments are settings, as for :func:`load`.
    """
    return _bead.loads(text, format, "<string>", _settings(settings))
