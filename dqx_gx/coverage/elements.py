"""What a contract really enforces: every element of the document and what becomes of it in a run.

Each element (named by its JSON pointer) is ``enforced`` by expectations of the translated suite,
``applied`` (it shapes the run without checking anything), ``documented`` (nothing can check it) or
``skipped`` with the reason. Which rules check an element is the loaders' answer, not a guess: every
rule carries the pointers of what it checks (``Rule.sources``), and the elements are joined with them
here. Neither GX nor Spark is imported: the expectation types are the kinds' own declarations.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dqx_gx.contract import Contract, chosen_contracts, load_contracts, read_document
from dqx_gx.contract.model import Source
from dqx_gx.contract.source import Document
from dqx_gx.coverage.places import Place, Status, native_places, odcs_places, thesis_places
from dqx_gx.kinds import kind_of
from dqx_gx.rules.opt_in import opted_out
from dqx_gx.rules.rule import CheckRule, ExpectationRule, MetricRule, Rule, SkippedRule, SqlRule, TypeRule

__all__ = ["Check", "Coverage", "Element", "Status", "chosen_contracts", "contract_coverage", "coverage"]

COLUMN_TYPE_EXPECTATION = "expect_dqx_column_type"
"""The expectation type of a type rule (``ExpectDqxColumnType``, named by GX from its class)."""
SQL_EXPECTATION = "expect_dqx_sql_value"
"""The expectation type of a ``type: sql`` rule (``ExpectDqxSqlValue``)."""
CHECK_EXPECTATION = "expect_dqx_check_assertion"
"""The expectation type of a hand-written assertion (``ExpectDqxCheckAssertion``)."""


@dataclass(frozen=True)
class Check:
    """An expectation of the translated suite that checks an element: its type and its rule's name."""

    type: str
    rule: str


@dataclass(frozen=True)
class Element:
    """One element of the document and what becomes of it."""

    path: str
    """Its JSON pointer in the document (RFC 6901): ``/schema/0/properties/2/quality/0``."""
    element: str
    status: Status
    expectations: tuple[Check, ...] = ()
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "element": self.element,
            "status": self.status.value,
            "expectations": [{"type": c.type, "rule": c.rule} for c in self.expectations],
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Coverage:
    """Every element of one contract document, in document order."""

    contract: str
    """Where the document came from (its path)."""
    elements: tuple[Element, ...]

    @property
    def counts(self) -> dict[str, int]:
        """Elements per status, every status listed."""
        return {status.value: sum(e.status is status for e in self.elements) for status in Status}

    def to_dict(self) -> dict[str, Any]:
        return {
            "contract": self.contract,
            "elements": [e.to_dict() for e in self.elements],
            "counts": self.counts,
        }

    def compact(self) -> dict[str, Any]:
        """The same table for a suite's ``meta``: expectation types only, reasons only for what is skipped."""
        rows = []
        for e in self.elements:
            row: dict[str, Any] = {"path": e.path, "element": e.element, "status": e.status.value}
            if e.expectations:
                row["expectations"] = sorted({c.type for c in e.expectations})
            if e.reason and e.status is Status.SKIPPED:
                row["reason"] = e.reason
            rows.append(row)
        return {"counts": self.counts, "elements": rows}


def coverage(
    source: Source | Document,
    *,
    schema: str | None = None,
    allow_sql: bool = False,
    references: Collection[str] = (),
) -> Coverage:
    """Load the contract at ``source`` and list what becomes of each of its elements in a run with these
    opt-ins: ``allow_sql`` (``type: sql`` rules) and ``references`` (the referenced datasets the run is
    given, by name). ``schema`` picks one schema object (by ``name`` or ``physicalName``); without it
    all are listed. Raises ContractValidationError for an invalid contract or an unknown ``schema``."""
    document = read_document(source)
    contracts = load_contracts(document)
    chosen = chosen_contracts(contracts, schema)
    return contract_coverage(document, chosen, allow_sql=allow_sql, references=references, not_built={})


def contract_coverage(
    document: Document,
    chosen: Sequence[tuple[int, Contract]],
    *,
    allow_sql: bool,
    references: Collection[str],
    not_built: Mapping[str, str],
) -> Coverage:
    """The coverage of ``document`` for its contracts ``chosen`` (each with its ``schema[]`` index), loaded
    from it. ``not_built`` (rule id → reason) are the rules the suite builder could not express (an
    ``engine: greatExpectations`` rule GX refuses), known once a suite has been built."""
    formats = {contract.format for _, contract in chosen}
    if "native" in formats:
        places = native_places(document.data)
    elif "thesis" in formats:
        places = thesis_places(document.data)
    else:
        places = odcs_places(document.data, [i for i, _ in chosen])
    rules = [rule for _, contract in chosen for rule in contract.rules]

    def outcome(rule: Rule) -> str | None:
        if isinstance(rule, SkippedRule):
            return rule.reason
        if isinstance(rule, CheckRule) and rule.problem:
            return rule.problem
        return not_built.get(rule.id) or opted_out(rule, allow_sql=allow_sql, references=references)

    elements = list(_joined(list(places), rules, outcome))
    for rule in rules:  # a hand-written assertion is no element of the document: listed after them, by its check
        if isinstance(rule, CheckRule):
            place = Place(f"check:{rule.check}/{rule.name}", rule.name, Status.SKIPPED)
            elements.append(_element(place, [rule], outcome))
    return Coverage(document.origin, tuple(elements))


def _joined(places: list[Place], rules: Iterable[Rule], outcome: Callable[[Rule], str | None]) -> Iterable[Element]:
    """Each place with the rules whose sources name it; a source no place names becomes an element of its
    own, after its nearest enclosing element, so no rule goes unlisted."""
    on: dict[str, list[Rule]] = {}
    for rule in rules:
        for source in rule.sources:
            on.setdefault(source, []).append(rule)
    listed = [place.path for place in places]
    for path in on.keys() - set(listed):
        name = on[path][0].name
        after = max((i for i, p in enumerate(listed) if path.startswith(f"{p}/")), default=len(listed) - 1)
        places.insert(after + 1, Place(path, name, Status.DOCUMENTED))
        listed.insert(after + 1, path)
    return (_element(place, on.get(place.path, []), outcome) for place in places)


def _element(place: Place, rules: list[Rule], outcome: Callable[[Rule], str | None]) -> Element:
    if not rules:
        return Element(place.path, place.element, place.fallback, reason=place.reason)
    checks: list[Check] = []
    reasons: list[str] = []
    for rule in rules:
        why = outcome(rule)
        if why is None:
            checks.append(Check(expectation_type(rule), rule.name))
        elif why not in reasons:
            reasons.append(why)
    if checks:
        reason = f"partly not checked: {'; '.join(reasons)}" if reasons else None
        return Element(place.path, place.element, Status.ENFORCED, tuple(checks), reason)
    return Element(place.path, place.element, Status.SKIPPED, reason="; ".join(reasons))


def expectation_type(rule: Rule) -> str:
    """The GX expectation type a suite stores for ``rule`` (as the suite builder makes it)."""
    match rule:
        case TypeRule():
            return COLUMN_TYPE_EXPECTATION
        case SqlRule():
            return SQL_EXPECTATION
        case CheckRule():
            return CHECK_EXPECTATION
        case ExpectationRule():
            return rule.expectation_type
        case MetricRule():
            return kind_of(rule.metric).expectation
    raise TypeError(f"{rule.id}: a skipped rule has no expectation")
