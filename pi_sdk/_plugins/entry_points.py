"""The entry points of one group, read from the installed ``*.dist-info`` folders directly.

Plugin discovery reads the ``pi_sdk`` group on first use of the registries. Importing
:mod:`importlib.metadata` (it imports ``email``, ``zipfile``, ``csv``, ``pathlib``...) and its
scan cost about 105 M instructions, 40% of discovery (``benchmarks/run.py``, import section);
this module reads the same files with ``os`` and ``str`` methods, for about a tenth of that.

The answer is :func:`importlib.metadata.entry_points`'s, in the same order (its rules in Python
3.11 to 3.13):

* ``sys.path`` in order (``""`` is the current directory), each folder's ``*.dist-info`` and
  ``*.egg-info`` children in listing order, grouped by normalized distribution name;
* one distribution per normalized name (PEP 503 with ``_``), the first found;
* every ``entry_points.txt`` read as sections of ``name = value`` lines, blank lines and lines
  starting with ``#`` skipped;
* the distribution's name and version from the ``Name:`` and ``Version:`` headers of
  ``METADATA`` (else ``PKG-INFO``).

Anything else is left to :mod:`importlib.metadata`, so the answer is the same in every case: a
line without ``=`` in any distribution's ``entry_points.txt``, a zip file or an ``.egg`` on
``sys.path``, a distribution finder on ``sys.meta_path`` other than the path finder, a
non-``str`` path, an info folder whose suffix is not lower case, folded or missing headers.
"""

from __future__ import annotations

import os
import re
import sys
from importlib import import_module
from typing import Any

__all__ = ["FoundEntryPoint", "entry_points"]

_PATTERN = re.compile(
    r"(?P<module>[\w.]+)\s*"
    r"(:\s*(?P<attr>[\w.]+)\s*)?"
    r"((?P<extras>\[.*\])\s*)?$"
)
"""``module:attr [extras]``: importlib.metadata's ``EntryPoint.pattern``."""


class FoundEntryPoint:
    """One entry point: ``name = value`` in ``group``, and the distribution that declares it.

    ``dist_name`` and ``version`` are the ``Name`` and ``Version`` headers of its metadata
    (``""`` and ``None`` when it has none, as :mod:`importlib.metadata` gives them).
    """

    __slots__ = ("dist_name", "group", "name", "value", "version")

    def __init__(self, name: str, value: str, group: str, dist_name: str, version: Any) -> None:
        self.name = name
        self.value = value
        self.group = group
        self.dist_name = dist_name
        self.version = version

    def __repr__(self) -> str:
        return (
            f"FoundEntryPoint(name={self.name!r}, value={self.value!r}, group={self.group!r},"
            f" dist_name={self.dist_name!r})"
        )

    def load(self) -> Any:
        """Import the module and return the named attribute (``EntryPoint.load``'s rules)."""
        match: Any = _PATTERN.match(self.value)
        module = import_module(match.group("module"))
        value: Any = module
        for attr in (match.group("attr") or "").split("."):
            if attr:
                value = getattr(value, attr)
        return value


class _Unusual(Exception):
    """Something this reader does not model: importlib.metadata answers instead."""


def entry_points(group: str) -> list[FoundEntryPoint]:
    """The entry points of ``group`` of the distributions ``sys.path`` finds, in their order.

    Raises:
        TypeError: an ``entry_points.txt`` line that is not ``name = value`` (raised by
            :func:`importlib.metadata.entry_points`, which reads such files).
    """
    try:
        return _read(group)
    except _Unusual:
        return _from_importlib(group)


def _from_importlib(group: str) -> list[FoundEntryPoint]:
    import importlib.metadata  # only for what _read leaves to it (see the module doc)

    found: list[FoundEntryPoint] = []
    for entry_point in importlib.metadata.entry_points(group=group):
        dist = entry_point.dist
        name, version = ("", "") if dist is None else (dist.metadata["Name"] or "", dist.version)
        found.append(FoundEntryPoint(entry_point.name, entry_point.value, group, name, version))
    return found


def _read(group: str) -> list[FoundEntryPoint]:
    _check_finders()
    seen: set[str] = set()
    found: list[FoundEntryPoint] = []
    for root in list(sys.path):
        for info in _infos(root):
            normalized = _normalize(_name_from_stem(os.path.basename(info)))
            if normalized in seen:
                continue
            seen.add(normalized)
            text = _read_text(info, "entry_points.txt")
            entries = _group(text, group) if text else []
            if entries:
                name, version = _name_and_version(info)
                found.extend(FoundEntryPoint(n, v, group, name, version) for n, v in entries)
    return found


def _check_finders() -> None:
    from importlib.machinery import PathFinder

    for finder in sys.meta_path:
        if finder is not PathFinder and getattr(finder, "find_distributions", None) is not None:
            raise _Unusual(finder)


def _infos(root: object) -> list[str]:
    """The info folders of one ``sys.path`` entry, grouped by normalized name (listing order)."""
    if not isinstance(root, str):
        raise _Unusual(root)
    try:
        children = os.listdir(root or ".")
    except OSError:
        if os.path.isfile(root):  # a zip file: importlib.metadata reads inside it
            raise _Unusual(root) from None
        return []
    if os.path.basename(root).lower().endswith(".egg"):
        raise _Unusual(root)
    groups: dict[str, list[str]] = {}
    for child in children:
        low = child.lower()
        if low.endswith((".dist-info", ".egg-info")):
            if not child.endswith((".dist-info", ".egg-info")) or not _name_from_stem(child):
                raise _Unusual(child)  # importlib names it from its metadata instead
            key = _normalize(low.rpartition(".")[0].partition("-")[0])
            groups.setdefault(key, []).append(os.path.join(root, child))
    return [info for infos in groups.values() for info in infos]


def _name_from_stem(stem: str) -> str:
    return stem.rpartition(".")[0].partition("-")[0]


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower().replace("-", "_")


def _read_text(info: str, name: str) -> str | None:
    try:
        with open(os.path.join(info, name), encoding="utf-8") as file:
            return file.read()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError):
        return None


def _group(text: str, group: str) -> list[tuple[str, str]]:
    """``(name, value)`` of the lines of section ``[group]`` (``Sectioned``'s rules)."""
    section: str | None = None
    entries: list[tuple[str, str]] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line.strip("[]")
            continue
        if section is None:
            continue
        name, equals, value = line.partition("=")
        if not equals:
            raise _Unusual(line)  # importlib.metadata raises its own error for it
        if section == group:
            entries.append((name.strip(), value.strip()))
    return entries


def _name_and_version(info: str) -> tuple[str, Any]:
    """The ``Name`` and ``Version`` headers (``""`` and ``None`` when absent)."""
    text = _read_text(info, "METADATA") or _read_text(info, "PKG-INFO")
    if not text:
        raise _Unusual(info)
    headers: dict[str, str] = {}
    for line in text.splitlines():
        if not line:
            break
        if line[0] in " \t" or ":" not in line:
            raise _Unusual(info)  # a folded header or a body without a blank line
        key, _, value = line.partition(":")
        headers.setdefault(key.lower(), value.lstrip(" \t"))
    return headers.get("name") or "", headers.get("version")
