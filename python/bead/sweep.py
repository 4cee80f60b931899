"""Parameter sweeps: one scene run over a grid or a list of parameter values, each run a task.

A parameter is a path into the scene file: ``"simulation.dt"``; ``"constraints.rod.length"``
(the constraint named ``rod``; entries of ``particles``, ``bodies``, ``parametric``, ``forces``
and ``constraints`` are found by name, or by index: ``"forces.0.g"``);
``"particles.bob.position.0"`` (an element of a list). Runs go to Ray when it is installed (a
local Ray instance is started if none is running; on a cluster, call
``ray.init(address=...)`` first and nothing else changes), or to local processes, or run one
after the other.
"""

from __future__ import annotations

import itertools
import os
import warnings
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Iterable, Mapping, Sequence, Union

import numpy as np

from .scene import Scene

Path = Union[str, "os.PathLike[str]"]

_NAMED_TABLES = ("particles", "bodies", "parametric", "forces", "constraints", "contacts")


def _set(data: dict[str, Any], path: str, value: Any) -> None:
    """Sets the value at ``path`` in the scene's data; a path that does not exist is a
    ``KeyError`` naming the part that was not found."""
    parts = path.split(".")
    node: Any = data
    walked: list[str] = []
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        where = ".".join(walked) or "the scene"
        if isinstance(node, list):
            match = None
            if part.isdigit() and int(part) < len(node):
                match = int(part)
            elif walked and walked[0] in _NAMED_TABLES:
                names = [e.get("name") if isinstance(e, dict) else None for e in node]
                if part in names:
                    match = names.index(part)
            if match is None:
                raise KeyError(f"sweep parameter {path!r}: {where} has no entry {part!r}")
            if last:
                node[match] = value
            else:
                node = node[match]
        elif isinstance(node, dict):
            if last:
                node[part] = value
            elif part in node:
                node = node[part]
            elif walked == [] and part in _NAMED_TABLES:
                raise KeyError(f"sweep parameter {path!r}: the scene has no {part}")
            else:
                raise KeyError(f"sweep parameter {path!r}: {where} has no key {part!r}")
        else:
            raise KeyError(f"sweep parameter {path!r}: {where} is a value, not a table")
        walked.append(part)


def _variations(
    parameters: Mapping[str, Sequence[Any]] | Sequence[Mapping[str, Any]],
) -> list[dict[str, Any]]:
    if isinstance(parameters, Mapping):
        keys = list(parameters)
        return [dict(zip(keys, combo)) for combo in itertools.product(*parameters.values())]
    return [dict(p) for p in parameters]


def _run_one(text: str, outputs: Sequence[str]) -> dict[str, Any]:
    """One task: build and run a scene given as JSON text. Module-level so that processes and
    Ray workers can import it."""
    from . import _bead

    # A start off its constraints is reported once, by the caller, for the whole sweep: a
    # worker's warning would be lost (Ray, processes) or repeated for every run.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", _bead.OffConstraintsWarning)
        sim = _bead.loads(text, "json", "<sweep>", None)
    off = [str(w.message) for w in caught if issubclass(w.category, _bead.OffConstraintsWarning)]
    result: dict[str, Any] = {}
    run: _bead.Run | None
    error: str | None
    try:
        run = sim.run()
        error = None
    except _bead.SimulationError as e:
        run = e.run
        error = str(e)
    if run is not None:
        result.update(run.summary)
        for name in outputs:
            columns = run.constraints if name in run.constraints else run.trajectory
            if name not in columns:
                raise KeyError(f"sweep output {name!r} is not a column of the run")
            result[name] = columns[name]
    result["warning"] = off[0] if off else None
    result["error"] = error
    return result


def sweep(
    scene: Scene | Path,
    parameters: Mapping[str, Sequence[Any]] | Sequence[Mapping[str, Any]],
    outputs: Iterable[str] = (),
    backend: str = "auto",
    workers: int | None = None,
) -> dict[str, Any]:
    """Runs ``scene`` once per variation of ``parameters`` and returns one table.

    ``parameters`` is either ``{path: values}``, whose grid (every combination) is run, or a
    list of ``{path: value}`` dictionaries, each one run. ``outputs`` names columns of the runs
    (``"t"``, ``"bob.x"``, ``"rod.lambda"``, as in the CSV files) to return whole, one array
    per run.

    ``backend``: ``"ray"`` (each run a Ray task; starts a local Ray instance with ``workers``
    CPUs unless one is already initialized), ``"processes"`` (a local process pool of
    ``workers``), ``"serial"``, or ``"auto"``: Ray if installed, else processes.

    The table is a dictionary of columns, one value per run in the order of the variations:
    each parameter path, every key of ``summary.json`` (``completed``, ``max_abs_C``,
    ``initial_abs_C``, ``energy_end``, ``wall_seconds``, ...), ``warning`` (None, or the message
    of a run that starts off its constraints), ``error`` (None, or the message of a failed step,
    whose rows up to the failure are kept), and each requested output (an object array of
    arrays). Numeric columns are numpy arrays.

    Runs that start off their constraints (a rod's length swept without moving its bob) give
    one :class:`bead.OffConstraintsWarning` naming them; ``"simulation.assemble": [True]``
    moves every start onto its constraints before its first step.
    """
    base = scene.copy() if isinstance(scene, Scene) else Scene.load(scene)
    variations = _variations(parameters)
    outputs = list(outputs)
    texts = []
    for variation in variations:
        variant = base.copy()
        for path, value in variation.items():
            _set(variant.data, path, value)
        texts.append(variant.to_json())

    if backend == "auto":
        try:
            import ray  # noqa: F401

            backend = "ray"
        except ImportError:
            backend = "processes"
    if backend == "ray":
        results = _on_ray(texts, outputs, workers)
    elif backend == "processes":
        with ProcessPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(_run_one, texts, [outputs] * len(texts)))
    elif backend == "serial":
        results = [_run_one(text, outputs) for text in texts]
    else:
        raise ValueError(
            f"backend must be 'auto', 'ray', 'processes' or 'serial', got {backend!r}"
        )
    _warn_off(variations, results)
    return _table(variations, results, outputs)


def _warn_off(variations: list[dict[str, Any]], results: list[dict[str, Any]]) -> None:
    """One :class:`bead.OffConstraintsWarning` for the runs of a sweep that started off their
    constraints (a rod's length swept without moving its bob), naming them."""
    from . import _bead

    off = [k for k, result in enumerate(results) if result.get("warning")]
    if not off:
        return
    shown = ", ".join(f"{k} {variations[k]}" for k in off[:4])
    more = f" and {len(off) - 4} more" if len(off) > 4 else ""
    warnings.warn(
        f"{len(off)} of {len(results)} runs start off their constraints: {shown}{more}. "
        f"Run {off[0]}: {results[off[0]]['warning']}. The table's 'warning' column has each "
        "run's message and 'initial_abs_C' how far off each started; the parameter "
        "'simulation.assemble': [True] moves every start onto its constraints.",
        _bead.OffConstraintsWarning,
        stacklevel=3,
    )


def _on_ray(texts: list[str], outputs: list[str], workers: int | None) -> list[dict[str, Any]]:
    try:
        import ray
    except ImportError:
        raise ImportError(
            "bead.sweep(backend='ray') needs Ray: pip install 'ray' (or bead[ray]); "
            "backend='processes' runs the sweep in local processes instead"
        ) from None
    if not ray.is_initialized():
        ray.init(num_cpus=workers or os.cpu_count(), include_dashboard=False)
    task = ray.remote(_run_one)
    return list(ray.get([task.remote(text, outputs) for text in texts]))


def _table(
    variations: list[dict[str, Any]], results: list[dict[str, Any]], outputs: list[str]
) -> dict[str, Any]:
    keys: list[str] = []
    for variation in variations:
        keys.extend(k for k in variation if k not in keys)
    for result in results:
        keys.extend(k for k in result if k not in keys)
    table: dict[str, Any] = {}
    for key in keys:
        source = [v.get(key) if key in v else r.get(key) for v, r in zip(variations, results)]
        if key in outputs:
            column = np.empty(len(source), dtype=object)
            column[:] = source
            table[key] = column
        elif all(isinstance(x, (int, float, bool)) and x is not None for x in source):
            table[key] = np.array(source)
        else:
            table[key] = source
    return table

