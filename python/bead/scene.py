"""Scenes built in Python, with the names of the scene format.

A :class:`Scene` is the scene file's data (the tables of ``docs/scene-format.md``) with methods
that append entries; it builds a :class:`bead.Simulation` and saves itself as a TOML or JSON
scene file that ``bead run`` reads. Every check is the engine's: an entry that the scene format
rejects raises :class:`bead.SceneError` at ``build()`` or ``save()``, naming the field.
"""

from __future__ import annotations

import copy
import json
import math
import os
from typing import Any, Union

from . import _bead

Path = Union[str, "os.PathLike[str]"]


def _finite(value: Any) -> Any:
    """The scene format spells an infinite mass "infinity" (JSON has no infinity)."""
    if isinstance(value, float) and math.isinf(value) and value > 0:
        return "infinity"
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    if hasattr(value, "tolist"):  # numpy arrays and scalars
        return _finite(value.tolist())
    return value


class Scene:
    """A scene under construction.

    ``Scene(name, dimension=2, dt=1e-3, duration=1.0, **simulation)`` starts a scene; the
    keyword arguments are keys of the ``[simulation]`` table (``integrator``, ``solver``,
    ``feedback``, ``output_every``, ...). ``data`` is the scene as a dictionary, in the layout
    of the scene file, and may be edited directly.
    """

    def __init__(
        self,
        name: str | None = None,
        *,
        dimension: int = 2,
        dt: float = 1e-3,
        duration: float = 1.0,
        **simulation: Any,
    ) -> None:
        self.data: dict[str, Any] = {"format": 1}
        if name is not None:
            self.data["name"] = name
        self.data["simulation"] = {
            "dimension": dimension,
            "dt": dt,
            "duration": duration,
            **simulation,
        }

    def _append(self, table: str, entry: dict[str, Any]) -> None:
        self.data.setdefault(table, []).append(_finite(entry))

    def particle(self, name: str, position: Any, **fields: Any) -> str:
        """Adds a ``[[particles]]`` entry (``mass``, ``velocity``, ``radius``); returns its name."""
        self._append("particles", {"name": name, "position": position, **fields})
        return name

    def body(self, name: str, position: Any, **fields: Any) -> str:
        """Adds a ``[[bodies]]`` entry: a 2D rigid body (``angle``, ``mass``, ``inertia``,
        ``shape``, ``velocity``, ``angular_velocity``), or in a ``dimension=3`` scene a 3D one
        (``orientation`` as a quaternion ``[w, x, y, z]``, ``angular_velocity`` a world vector,
        ``inertia`` principal moments or a 3 × 3 tensor, or a ``shape`` with a ``density``);
        returns its name."""
        self._append("bodies", {"name": name, "position": position, **fields})
        return name

    def parametric(self, name: str, coordinates: Any, points: Any, **fields: Any) -> str:
        """Adds a ``[[parametric]]`` object: generalized coordinates and mass points whose
        positions are expressions in ``u0, u1, ...`` and ``t``; returns its name."""
        self._append(
            "parametric", {"name": name, "coordinates": coordinates, "points": points, **fields}
        )
        return name

    def force(self, kind: str, **fields: Any) -> None:
        """Adds a ``[[forces]]`` entry: ``gravity``, ``spring``, ``drag``, ..."""
        self._append("forces", {"kind": kind, **fields})

    def constraint(self, kind: str, **fields: Any) -> str | None:
        """Adds a ``[[constraints]]`` entry: ``nail``, ``distance``, ``half-plane``,
        ``revolute``, ``motor``, ``expression``, ...; returns its name if it has one."""
        self._append("constraints", {"kind": kind, **fields})
        name = fields.get("name")
        return str(name) if name is not None else None

    def contacts(self, particles: Any = "all", **fields: Any) -> None:
        """Adds a ``[[contacts]]`` group: non-penetration between nearby pairs of
        ``particles`` ("all", or a list of names)."""
        self._append("contacts", {"particles": particles, **fields})

    def to_json(self) -> str:
        """The scene as JSON scene-file text."""
        return json.dumps(_finite(self.data), indent=2, allow_nan=False)

    def to_toml(self) -> str:
        """The scene as TOML scene-file text (checked by the engine's parser)."""
        return _bead.convert(self.to_json(), "json", "toml", "<scene>")

    def save(self, path: Path) -> None:
        """Writes the scene file; the format follows the extension (``.json``, else TOML)."""
        path = os.fspath(path)
        text = self.to_json() if path.endswith(".json") else self.to_toml()
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

    def build(self, **settings: Any) -> _bead.Simulation:
        """Builds the simulation; keyword arguments are settings, as for :func:`bead.load`."""
        text = json.dumps(settings, allow_nan=False) if settings else None
        return _bead.loads(self.to_json(), "json", "<scene>", text)

    def copy(self) -> Scene:
        """An independent copy (a sweep edits copies)."""
        other = Scene.__new__(Scene)
        other.data = copy.deepcopy(self.data)
        return other

    @classmethod
    def load(cls, path: Path) -> Scene:
        """Reads a scene file into a :class:`Scene`, to edit it or to sweep over it."""
        path = os.fspath(path)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        source = "json" if path.endswith(".json") else "toml"
        scene = Scene.__new__(Scene)
        scene.data = json.loads(_bead.convert(text, source, "json", path))
        return scene

    def __repr__(self) -> str:
        counts = ", ".join(
            f"{len(self.data[k])} {k}"
            for k in ("particles", "bodies", "parametric", "forces", "constraints")
            if self.data.get(k)
        )
        return f"<bead.Scene {self.data.get('name', '')!r}: {counts or 'empty'}>"
