"""A kind's words drive the parsers, the JSON Schemas and the checks reference: the derived files are what the
declarations give, every example loads as its kind, and the words agree with what the kind computes."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import yaml

from dqx_gx import Contract, ContractValidationError
from dqx_gx.contract.native import load_native
from dqx_gx.kinds import CHECKS, KINDS, LIBRARY, MetricKind, Value
from dqx_gx.kinds.generate import COMMAND, DERIVED, ROOT
from dqx_gx.kinds.kind import Kind
from dqx_gx.kinds.schema_gen import joined
from dqx_gx.kinds.words import RETURN, Example, Format, Place
from dqx_gx.rules.rule import MetricRule
from tests.documents import native_document, odcs_document

ORDERS = {"order_id": "string", "status": "string", "customer_id": "string", "amount": "number"}
"""The example table of the reference (and ``ordered_at``, a timestamp)."""


@pytest.mark.parametrize("relative", list(DERIVED))
def test_committed_files_are_what_the_declarations_give(relative: str) -> None:
    committed = (ROOT / relative).read_text("utf-8")
    assert committed == DERIVED[relative](), (
        f"{relative} differs from the kind declarations (dqx_gx/kinds); regenerate it: {COMMAND}"
    )


def _odcs(example: Example) -> Contract:
    properties: list[dict[str, Any]] = [{"name": n, "logicalType": t} for n, t in ORDERS.items()]
    properties.append({"name": "ordered_at", "logicalType": "timestamp"})
    held = next((p for p in properties if p["name"] == example.column), None)
    if held is None:  # an example of its own property (an object's fields)
        held = {"name": example.column}
        properties.append(held)
    snippet = yaml.safe_load(example.text)
    if example.place is Place.QUALITY:
        held["quality"] = [snippet]
    else:
        held.update(snippet)
    customers = {"name": "customers", "properties": [{"name": "id", "logicalType": "string"}]}
    (contract, _) = Contract.from_odcs(odcs_document([{"name": "orders", "properties": properties}, customers]))
    return contract


def _native(example: Example) -> Contract:
    types = {"string": "string", "number": "float"}
    columns: list[dict[str, Any]] = [{"name": n, "type": types[t], "description": n} for n, t in ORDERS.items()]
    columns.append({"name": "ordered_at", "type": "timestamp", "description": "when"})
    snippet = yaml.safe_load(example.text)
    if example.place is Place.NATIVE_COLUMN:
        next(c for c in columns if c["name"] == example.column)["checks"] = [snippet]
        return load_native(native_document(columns))
    return load_native(native_document(columns, checks=[snippet]))


def loaded(example: Example) -> Contract:
    """The example snippet in a contract of the reference's example table, in the format of its place."""
    return _native(example) if example.place in (Place.NATIVE_COLUMN, Place.NATIVE_TABLE) else _odcs(example)


EXAMPLES = [(kind, example) for kind in KINDS.values() for example in kind.words.examples]

COUNTING_ROWS = joined(name for name, (kind, _) in CHECKS[Format.DQX].items() if kind.value is Value.ROWS)
"""The DQX checks that count rows, in the words of messages (``missing, duplicates, … and blacklist``)."""


@pytest.mark.parametrize(("kind", "example"), EXAMPLES, ids=[f"{k.metric.value}-{e.place.name}" for k, e in EXAMPLES])
def test_every_example_loads_cleanly_as_its_kind(kind: Kind, example: Example) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an example the reference shows draws no ContractWarning
        contract = loaded(example)
    measured = [r for r in contract.rules if isinstance(r, MetricRule) and r.metric.kind is kind.metric]
    assert len(measured) == 1, [r.expression() for r in contract.rules]
    located = {Place.QUALITY: "quality[0]", Place.NATIVE_COLUMN: ".checks[0]", Place.NATIVE_TABLE: "checks[0]"}
    assert measured[0].id.endswith(located.get(example.place, "")), measured[0].id
    assert measured[0].threshold is not None, "an example shows a bound"


@pytest.mark.parametrize("format", list(Format))
def test_every_check_has_an_example_in_its_format(format: Format) -> None:
    place = {Format.DQX: Place.QUALITY, Format.NATIVE_COLUMN: Place.NATIVE_COLUMN}.get(format, Place.NATIVE_TABLE)
    for name, (kind, _) in CHECKS[format].items():
        named = f"check: {name}" if format is Format.DQX else f"type: {name}"
        assert any(e.place is place and named in e.text for e in kind.words.examples), (kind.metric, format)


def test_the_vocabulary_of_each_format() -> None:
    assert list(CHECKS[Format.DQX]) == [
        "missing",
        "duplicates",
        "whitelist",
        "blacklist",
        "cardinality",
        "min",
        "max",
        "mean",
        "sum",
        "count",
        "variance",
        "stddev",
        "percentile",
        "min_length",
        "max_length",
        "avg_length",
        "num_rows",
        "completeness",
        "length_between",
        "is_not_in_future",
    ]
    assert set(CHECKS[Format.NATIVE_COLUMN]) == set(CHECKS[Format.DQX]) - {"num_rows", "completeness"} | {"pattern"}
    assert list(CHECKS[Format.NATIVE_TABLE]) == ["duplicates", "num_rows", "freshness", "completeness"]
    assert {name: [k.metric for k, _ in words] for name, words in LIBRARY.items()} == {
        "nullValues": [MetricKind.NULL_COUNT],
        "missingValues": [MetricKind.NULL_COUNT, MetricKind.MISSING_COUNT],
        "invalidValues": [MetricKind.INVALID_COUNT, MetricKind.PATTERN_INVALID_COUNT],
        "duplicateValues": [MetricKind.DUPLICATE_COUNT],
        "rowCount": [MetricKind.NUM_ROWS],
    }


@pytest.mark.parametrize("format", list(Format))
def test_words_agree_with_what_the_kind_computes(format: Format) -> None:
    """``return`` goes with counts of rows, an option that fills a metric field names one the kind takes,
    and an option has one schema within a format (the generated schema holds one)."""
    seen: dict[str, Any] = {}
    for kind, check in CHECKS[format].values():
        assert (RETURN in check.takes) == (kind.value is Value.ROWS), check.name
        for option in check.takes:
            assert seen.setdefault(option.name, option.schema) == option.schema, option.name
        assert set(check.required) | set(check.one_of) <= {o.name for o in check.takes}, check.name
        for param in kind.params:
            given = param.name in {o.name for o in check.takes}
            assert given or (format is not Format.DQX), (check.name, param)


@pytest.mark.parametrize(
    ("implementation", "message"),
    [
        ("check: min\ncolumn: a\npercentile: 0.5\n", "percentile applies only to percentile, not to 'min'"),
        ("check: num_rows\nreturn: pct\n", f"return applies only to {COUNTING_ROWS}"),
        ("check: max_length\ncolumn: a\n", "check 'max_length' needs 'column_type:' (string, list or map)"),
        ("check: median\n", "unknown check 'median'; expected one of: missing, duplicates, whitelist, blacklist, "),
    ],
)
def test_derived_schema_speaks_in_the_declared_words(implementation: str, message: str) -> None:
    quality = {"type": "custom", "engine": "dqx", "name": "x", "implementation": implementation}
    document = odcs_document([{"name": "t", "properties": [{"name": "a", "quality": [quality]}]}])
    with pytest.raises(
        ContractValidationError, match="Quality rule 'x': " + message.replace("(", r"\(").replace(")", r"\)")
    ):
        Contract.from_odcs(document)
