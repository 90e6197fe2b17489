"""ODCS ``relationships`` (foreign keys) as rules: the batch's key must be a key of the referenced dataset.

A relationship becomes a ``missing_reference_count`` rule that must be 0, checked when the run is
given the referenced dataset by the name its ``to`` uses (``to: customers.id`` → ``customers``)
and SKIPPED with how to give it otherwise (docs/semantics.md, 'Foreign keys'). One that names what cannot be resolved (a
key of another dataset in ``from``, another document, keys of different lengths) is SKIPPED with the
reason; a relationship refuses a contract only where the ODCS JSON Schema does (a ``from`` on a
property, a ``to`` that is not a reference).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dqx_gx.contract.model import skipped
from dqx_gx.kinds import Metric, MetricKind
from dqx_gx.rules.rule import MetricRule, Rule, RuleOrigin, SchemaCheck
from dqx_gx.rules.threshold import Operator, Threshold

NONE_MISSING = Threshold(Operator.MUST_BE, 0.0)


@dataclass(frozen=True)
class Key:
    """The referenced side of a relationship: the dataset, by the name the contract uses, and its key columns."""

    dataset: str
    columns: tuple[str, ...]


class Unresolved(Exception):
    """Why a relationship cannot be checked."""


@dataclass(frozen=True)
class SchemaObjects:
    """The schema objects of one document, for resolving what a relationship names."""

    objects: Sequence[Mapping[str, Any]]

    def find(self, dataset: str) -> Mapping[str, Any] | None:
        """The schema object called ``dataset`` (``name`` or ``physicalName``), if the document declares it."""
        return next((o for o in self.objects if dataset in (o.get("name"), o.get("physicalName"))), None)

    def reference(self, text: Any) -> tuple[str, str]:
        """``(dataset, property path)`` of one reference: shorthand ``table.column`` or ODCS's
        ``schema/<id>/properties/<id>`` (ids of this document only)."""
        if not isinstance(text, str) or not text:
            raise Unresolved(f"{text!r} is not a reference (table.column)")
        if "/" in text or "#" in text:
            return self._by_ids(text)
        table, _, column = text.partition(".")
        if self.find(table) is None:  # not a schema object here: a qualified name, the last part its column
            table, _, column = text.rpartition(".")
        if not table or not column:
            raise Unresolved(f"{text!r} is not a reference (table.column)")
        return table, column

    def _by_ids(self, text: str) -> tuple[str, str]:
        elsewhere, _, local = text.rpartition("#")
        if elsewhere:
            raise Unresolved(f"{text!r} refers to another document ({elsewhere}), which a run is not given")
        parts = local.strip("/").split("/")
        if len(parts) < 4 or parts[0] != "schema" or len(parts) % 2 or set(parts[2::2]) != {"properties"}:
            raise Unresolved(f"{text!r} is not a schema/<id>/properties/<id> reference")
        obj = next((o for o in self.objects if o.get("id") == parts[1]), None)
        if obj is None:
            raise Unresolved(f"{text!r}: no schema object of this contract has id {parts[1]!r}")
        names: list[str] = []
        properties = obj.get("properties") or []
        for prop_id in parts[3::2]:
            prop = next((p for p in properties if isinstance(p, Mapping) and p.get("id") == prop_id), None)
            if prop is None:
                raise Unresolved(f"{text!r}: schema object {obj.get('name')!r} has no property with id {prop_id!r}")
            names.append(str(prop.get("name")))
            properties = prop.get("properties") or []
        return str(obj.get("name")), ".".join(names)

    def column(self, dataset: str, path: str) -> str:
        """The column a property path of a dataset is in the data: its ``physicalName`` when the document
        declares the dataset, else the path as written."""
        obj = self.find(dataset)
        if obj is None:
            return path
        columns, properties = [], obj.get("properties") or []
        for part in path.split("."):
            prop = next(
                (p for p in properties if isinstance(p, Mapping) and part in (p.get("name"), p.get("physicalName"))),
                None,
            )
            if prop is None:
                raise Unresolved(f"{dataset} declares no property {path!r}")
            columns.append(str(prop.get("physicalName") or part))
            properties = prop.get("properties") or []
        return ".".join(columns)


IN_COLLECTIONS = (
    "a key inside array elements or map keys and values is no key of a row: foreign keys there are not checked yet"
)


def relationship_rules(
    document: SchemaObjects,
    index: int,
    owners: Sequence[tuple[str, Mapping[str, Any], str | None]],
    in_collections: Sequence[tuple[str, Mapping[str, Any]]] = (),
) -> Iterator[Rule]:
    """The rules of schema object ``index``'s relationships. ``owners`` are (path, raw mapping, owning
    column): the schema object itself (no column), then each property (its column), in contract order;
    ``in_collections`` the mappings inside array elements and maps, whose relationships are SKIPPED."""
    names = {n for n in (document.objects[index].get("name"), document.objects[index].get("physicalName")) if n}
    for path, raw, owner in owners:
        for i, relation in enumerate(raw.get("relationships") or []):
            if isinstance(relation, Mapping):
                yield _rule(document, names, f"{path}.relationships[{i}]", relation, owner)
    for path, raw in in_collections:
        for i, relation in enumerate(raw.get("relationships") or []):
            if isinstance(relation, Mapping):
                where, name = f"{path}.relationships[{i}]", f"foreign key {path} → {_shown(relation.get('to'))}"
                yield skipped(f"{where} ({name})", IN_COLLECTIONS, stacklevel=3, **_identity(where, name))


def _rule(document: SchemaObjects, names: set[str], where: str, relation: Mapping[str, Any], owner: str | None) -> Rule:
    source, target = relation.get("from", owner), relation.get("to")
    name = f"foreign key {_shown(source)} → {_shown(target)}"
    fields = _identity(where, name)
    try:
        ours = _ours(document, names, source, owner)
        theirs = _theirs(document, target)
        if len(ours) != len(theirs.columns):
            raise Unresolved(
                f"its 'from' names {len(ours)} column(s) and its 'to' {len(theirs.columns)}; a key pairs them"
            )
    except Unresolved as exc:
        return skipped(f"{where} ({name})", str(exc), stacklevel=4, column=owner, **fields)
    metric = Metric(
        MetricKind.MISSING_REFERENCE_COUNT, ours, reference=theirs.dataset, reference_columns=theirs.columns
    )
    column = owner or (ours[0] if len(ours) == 1 else None)
    return MetricRule(metric=metric, threshold=NONE_MISSING, column=column, **fields)


def _identity(where: str, name: str) -> dict[str, Any]:
    """What every foreign-key rule is, run or skipped: P1 (a relationship has no severity), consistency."""
    return {
        "id": where,
        "name": name,
        "severity": "P1",
        "origin": RuleOrigin.SCHEMA,
        "schema_check": SchemaCheck.RELATIONSHIP,
        "dimension": "consistency",
    }


def _ours(document: SchemaObjects, names: set[str], source: Any, owner: str | None) -> tuple[str, ...]:
    """The key columns in this dataset: the owning property's, or the schema-level ``from``'s."""
    if owner is not None:
        return (owner,)
    columns = []
    for reference in source if isinstance(source, list) else [source]:
        dataset, path = document.reference(reference)
        if dataset not in names:
            raise Unresolved(f"its 'from' names {dataset}, not this schema object ({', '.join(sorted(names))})")
        columns.append(document.column(dataset, path))
    return tuple(columns)


def _theirs(document: SchemaObjects, target: Any) -> Key:
    """The referenced dataset and its key columns; every column of one dataset."""
    found = [document.reference(reference) for reference in (target if isinstance(target, list) else [target])]
    datasets = sorted({dataset for dataset, _ in found})
    if len(datasets) != 1:
        raise Unresolved(f"its 'to' names several datasets ({', '.join(datasets)}); a key is in one")
    return Key(datasets[0], tuple(document.column(dataset, path) for dataset, path in found))


def _shown(reference: Any) -> str:
    return "(" + ", ".join(map(str, reference)) + ")" if isinstance(reference, list) else str(reference)
