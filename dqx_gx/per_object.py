"""Values kept for a live object, found by its identity: an object's entries go when it does, so another object
given the same ``id`` later never finds them (a contract's installed suite, the rules its last run failed)."""

from __future__ import annotations

import weakref
from collections.abc import Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class PerObject(Generic[V]):
    """``owner`` (and a hashable ``extra``, e.g. the run's options) → a value, while ``owner`` lives."""

    def __init__(self) -> None:
        self._kept: dict[tuple[int, Hashable], tuple[weakref.ref[object], V]] = {}

    def get(self, owner: object, extra: Hashable = None) -> V | None:
        found = self._kept.get((id(owner), extra))
        return found[1] if found is not None and found[0]() is owner else None

    def set(self, owner: object, value: V, extra: Hashable = None) -> None:
        key = (id(owner), extra)
        self._kept[key] = (weakref.ref(owner, lambda _: self._kept.pop(key, None)), value)

    def __len__(self) -> int:
        return len(self._kept)
