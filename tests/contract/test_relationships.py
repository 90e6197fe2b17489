"""ODCS ``relationships`` (foreign keys) are ``missing_reference_count`` rules that must be 0, or SKIPPED
with the reason and a ContractWarning when what they name cannot be resolved; never a load error."""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from dqx_gx import Contract, ContractWarning, load_contracts
from dqx_gx.contract.pointer import pointer
from dqx_gx.contract.relationships import IN_COLLECTIONS
from dqx_gx.kinds import Metric, MetricKind
from dqx_gx.rules.rule import MetricRule, Rule, RuleOrigin, SchemaCheck, SkippedRule
from dqx_gx.rules.threshold import Operator, Threshold
from tests.documents import odcs_document

NONE_MISSING = Threshold(Operator.MUST_BE, 0.0)


def load_all(schema: list[dict[str, Any]]) -> tuple[list[Contract], list[str]]:
    """Every contract of the document, and the ContractWarnings its loading gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        contracts = Contract.from_odcs(odcs_document(schema))
    return contracts, [str(w.message) for w in caught if issubclass(w.category, ContractWarning)]


def load(schema: list[dict[str, Any]]) -> tuple[Contract, list[str]]:
    """The first schema object's contract, and the ContractWarnings of the whole document."""
    contracts, messages = load_all(schema)
    return contracts[0], messages


def keys(contract: Contract) -> list[Rule]:
    return [r for r in contract.rules if r.schema_check is SchemaCheck.RELATIONSHIP]


def only_key(contract: Contract) -> MetricRule:
    (rule,) = keys(contract)
    assert isinstance(rule, MetricRule)
    return rule


def reference_of(rule: MetricRule) -> tuple[tuple[str, ...], str | None, tuple[str, ...]]:
    assert rule.metric.kind is MetricKind.MISSING_REFERENCE_COUNT
    assert rule.threshold == NONE_MISSING
    return rule.metric.columns, rule.metric.reference, rule.metric.reference_columns


def note(rule_id: str, name: str, dataset: str) -> str:
    return (
        f"{rule_id} ({name}): checked only when the run is given the dataset {dataset!r} "
        f"(--reference {dataset}=PATH); SKIPPED otherwise"
    )


# --- what resolves: a rule, a lint note, no warning ------------------------------------------------------


def test_a_property_relationship_checks_physical_columns_on_both_sides() -> None:
    contract, messages = load(
        [
            {
                "name": "orders",
                "physicalName": "orders_tbl",
                "properties": [
                    {"name": "id", "logicalType": "integer"},
                    {"name": "user_id", "physicalName": "uid", "relationships": [{"to": "users.id"}]},
                ],
            },
            {"name": "users", "properties": [{"name": "id", "physicalName": "user_pk"}]},
        ]
    )
    assert messages == []
    rule = only_key(contract)
    expected = MetricRule(
        id="schema[0].properties[1].relationships[0]",
        name="foreign key uid → users.id",
        severity="P1",
        origin=RuleOrigin.SCHEMA,
        dimension="consistency",
        column="uid",
        schema_check=SchemaCheck.RELATIONSHIP,
        metric=Metric(MetricKind.MISSING_REFERENCE_COUNT, ("uid",), reference="users", reference_columns=("user_pk",)),
        threshold=NONE_MISSING,
        sources=("/schema/0/properties/1/relationships/0",),
    )
    assert rule == expected
    assert rule.expression() == "missing_reference_count(uid → users.user_pk) = 0"
    assert contract.lint_notes == (note(rule.id, rule.name, "users"),)


@pytest.mark.parametrize(
    ("to", "reference", "reference_columns"),
    [
        ("customers.customer_id", "customers", ("customer_id",)),  # not declared here: as written
        ("db.sales.customers.id", "db.sales.customers", ("id",)),  # a qualified name: the last part its column
        ("users_tbl.uid", "users_tbl", ("UID",)),  # declared, named by its physicalName
        ("users.uid", "users", ("UID",)),
        ("users.addr.zip", "users", ("ADDR.ZIP",)),  # a struct field of a declared dataset
    ],
)
def test_the_referenced_dataset_is_named_as_in_to_and_its_columns_physically_when_declared(
    to: str, reference: str, reference_columns: tuple[str, ...]
) -> None:
    users = {
        "name": "users",
        "physicalName": "users_tbl",
        "properties": [
            {"name": "uid", "physicalName": "UID"},
            {
                "name": "addr",
                "physicalName": "ADDR",
                "logicalType": "object",
                "properties": [{"name": "zip", "physicalName": "ZIP"}],
            },
        ],
    }
    contract, messages = load([{"name": "orders", "properties": [{"name": "k", "relationships": [{"to": to}]}]}, users])
    assert messages == []
    rule = only_key(contract)
    assert reference_of(rule) == (("k",), reference, reference_columns)
    assert rule.name == f"foreign key k → {to}"
    assert contract.lint_notes == (note("schema[0].properties[0].relationships[0]", rule.name, reference),)


def test_a_schema_level_composite_key_pairs_its_columns_in_order() -> None:
    relation = {"type": "foreignKey", "from": ["orders.a", "orders.b"], "to": ["users.x", "users.y"]}
    contract, messages = load(
        [
            {
                "name": "orders",
                "relationships": [relation],
                "properties": [{"name": "a", "physicalName": "A"}, {"name": "b"}],
            }
        ]
    )
    assert messages == []
    rule = only_key(contract)
    assert (rule.id, rule.name, rule.column, rule.severity) == (
        "schema[0].relationships[0]",
        "foreign key (orders.a, orders.b) → (users.x, users.y)",
        None,  # two columns: the rule is about none of them alone
        "P1",
    )
    assert reference_of(rule) == (("A", "b"), "users", ("x", "y"))
    assert rule.expression() == "missing_reference_count((A, b) → users.(x, y)) = 0"


def test_a_schema_level_from_may_name_this_object_by_its_physical_name() -> None:
    contract, messages = load(
        [
            {
                "name": "orders",
                "physicalName": "ord",
                "relationships": [{"from": "ord.a", "to": "users.x"}],
                "properties": [{"name": "a", "physicalName": "col_a"}],
            }
        ]
    )
    assert messages == []
    rule = only_key(contract)
    assert (rule.name, rule.column) == ("foreign key ord.a → users.x", "col_a")
    assert reference_of(rule) == (("col_a",), "users", ("x",))


def test_id_references_of_this_document_resolve_to_names_and_physical_names() -> None:
    schema = [
        {
            "id": "o1",
            "name": "orders",
            "relationships": [{"from": "schema/o1/properties/pa", "to": "schema/u1/properties/pu"}],
            "properties": [
                {"id": "pa", "name": "a", "physicalName": "A"},
                {"id": "pz", "name": "z", "relationships": [{"to": "/schema/u1/properties/ad/properties/zp"}]},
            ],
        },
        {
            "id": "u1",
            "name": "users",
            "physicalName": "users_tbl",
            "properties": [
                {"id": "pu", "name": "uid", "physicalName": "UID"},
                {
                    "id": "ad",
                    "name": "addr",
                    "physicalName": "ADDR",
                    "logicalType": "object",
                    "properties": [{"id": "zp", "name": "zip", "physicalName": "ZIP"}],
                },
            ],
        },
    ]
    contract, messages = load(schema)
    assert messages == []
    found = {r.id: r for r in keys(contract)}
    assert list(found) == ["schema[0].relationships[0]", "schema[0].properties[1].relationships[0]"]
    schema_level, nested = found.values()
    assert isinstance(schema_level, MetricRule) and isinstance(nested, MetricRule)
    # an id reference names the dataset by its name, as a shorthand one written with the name would
    assert reference_of(schema_level) == (("A",), "users", ("UID",))
    assert schema_level.name == "foreign key schema/o1/properties/pa → schema/u1/properties/pu"
    assert reference_of(nested) == (("z",), "users", ("ADDR.ZIP",))


def test_a_struct_field_relationship_is_owned_by_its_dotted_column() -> None:
    address = {
        "name": "address",
        "physicalName": "addr",
        "logicalType": "object",
        "properties": [
            {"name": "city", "logicalType": "string"},
            {"name": "zip", "physicalName": "zip_code", "relationships": [{"to": "zips.code"}]},
        ],
    }
    contract, messages = load([{"name": "customers", "properties": [{"name": "id"}, address]}])
    assert messages == []
    rule = only_key(contract)
    assert (rule.id, rule.name, rule.column) == (
        "schema[0].properties[1].properties[1].relationships[0]",
        "foreign key addr.zip_code → zips.code",
        "addr.zip_code",
    )
    assert reference_of(rule) == (("addr.zip_code",), "zips", ("code",))


def test_each_relationship_is_a_rule_of_the_object_declaring_it_in_contract_order() -> None:
    schema = [
        {
            "name": "orders",
            "relationships": [{"from": "orders.a", "to": "users.id"}],
            "properties": [
                {"name": "a", "relationships": [{"to": "users.id"}, {"to": "accounts.id"}]},
                {"name": "b", "relationships": [{"to": "other.yaml#/schema/x/properties/y"}]},
            ],
        },
        {"name": "lines", "properties": [{"name": "order_id", "relationships": [{"to": "orders.a"}]}]},
    ]
    (orders, lines), messages = load_all(schema)
    assert [(r.id, r.name, type(r).__name__) for r in keys(orders)] == [
        ("schema[0].relationships[0]", "foreign key orders.a → users.id", "MetricRule"),
        ("schema[0].properties[0].relationships[0]", "foreign key a → users.id", "MetricRule"),
        ("schema[0].properties[0].relationships[1]", "foreign key a → accounts.id", "MetricRule"),
        (
            "schema[0].properties[1].relationships[0]",
            "foreign key b → other.yaml#/schema/x/properties/y",
            "SkippedRule",
        ),
    ]
    # a lint note per checkable foreign key; the skipped one has its warning instead
    assert [n.partition(" ")[0] for n in orders.lint_notes] == [r.id for r in keys(orders)][:3]
    assert [n for n in messages if "relationships" in n] == [
        "schema[0].properties[1].relationships[0] (foreign key b → other.yaml#/schema/x/properties/y): "
        "'other.yaml#/schema/x/properties/y' refers to another document (other.yaml), which a run is not given; "
        "skipping"
    ]
    rule = only_key(lines)
    assert rule.id == "schema[1].properties[0].relationships[0]"
    assert reference_of(rule) == (("order_id",), "orders", ("a",))


# --- what cannot be resolved: SKIPPED with the reason, warned, never refused ----------------------------------

UNRESOLVED: list[tuple[str, list[dict[str, Any]], str, str, str | None, str]] = [
    (
        "from-and-to-lengths-differ-at-schema-level",
        [
            {
                "name": "orders",
                "relationships": [{"from": ["orders.a", "orders.b"], "to": ["users.x"]}],
                "properties": [{"name": "a"}, {"name": "b"}],
            }
        ],
        "schema[0].relationships[0]",
        "foreign key (orders.a, orders.b) → (users.x)",
        None,
        "its 'from' names 2 column(s) and its 'to' 1; a key pairs them",
    ),
    (
        "a-property-to-a-composite-key",
        [{"name": "orders", "properties": [{"name": "a", "relationships": [{"to": ["users.x", "users.y"]}]}]}],
        "schema[0].properties[0].relationships[0]",
        "foreign key a → (users.x, users.y)",
        "a",
        "its 'from' names 1 column(s) and its 'to' 2; a key pairs them",
    ),
    (
        "to-names-several-datasets",
        [{"name": "orders", "properties": [{"name": "a", "relationships": [{"to": ["users.x", "people.y"]}]}]}],
        "schema[0].properties[0].relationships[0]",
        "foreign key a → (users.x, people.y)",
        "a",
        "its 'to' names several datasets (people, users); a key is in one",
    ),
    (
        "schema-level-from-names-another-object",
        [
            {
                "name": "orders",
                "physicalName": "ord",
                "relationships": [{"from": "users.a", "to": "people.x"}],
                "properties": [{"name": "a"}],
            },
            {"name": "users", "properties": [{"name": "a"}]},
        ],
        "schema[0].relationships[0]",
        "foreign key users.a → people.x",
        None,
        "its 'from' names users, not this schema object (ord, orders)",
    ),
    (
        "another-document",
        [
            {
                "name": "orders",
                "properties": [{"name": "a", "relationships": [{"to": "other.yaml#/schema/x/properties/y"}]}],
            }
        ],
        "schema[0].properties[0].relationships[0]",
        "foreign key a → other.yaml#/schema/x/properties/y",
        "a",
        "'other.yaml#/schema/x/properties/y' refers to another document (other.yaml), which a run is not given",
    ),
    (
        "an-unknown-schema-id",
        [{"name": "orders", "properties": [{"name": "a", "relationships": [{"to": "schema/nope/properties/x"}]}]}],
        "schema[0].properties[0].relationships[0]",
        "foreign key a → schema/nope/properties/x",
        "a",
        "'schema/nope/properties/x': no schema object of this contract has id 'nope'",
    ),
    (
        "an-unknown-property-id",
        [
            {"name": "orders", "properties": [{"name": "a", "relationships": [{"to": "schema/u1/properties/x"}]}]},
            {"id": "u1", "name": "users", "properties": [{"id": "pu", "name": "uid"}]},
        ],
        "schema[0].properties[0].relationships[0]",
        "foreign key a → schema/u1/properties/x",
        "a",
        "'schema/u1/properties/x': schema object 'users' has no property with id 'x'",
    ),
    (
        "an-id-reference-outside-schema",
        [{"name": "orders", "properties": [{"name": "a", "relationships": [{"to": "other/u1/properties/pu"}]}]}],
        "schema[0].properties[0].relationships[0]",
        "foreign key a → other/u1/properties/pu",
        "a",
        "'other/u1/properties/pu' is not a schema/<id>/properties/<id> reference",
    ),
    (
        "a-property-the-declared-dataset-does-not-declare",
        [
            {"name": "orders", "properties": [{"name": "a", "relationships": [{"to": "users.nope"}]}]},
            {"name": "users", "properties": [{"name": "uid"}]},
        ],
        "schema[0].properties[0].relationships[0]",
        "foreign key a → users.nope",
        "a",
        "users declares no property 'nope'",
    ),
]


@pytest.mark.parametrize(
    ("schema", "rule_id", "name", "column", "reason"), [case[1:] for case in UNRESOLVED], ids=[c[0] for c in UNRESOLVED]
)
def test_an_unresolvable_relationship_is_skipped_with_the_reason_and_warned(
    schema: list[dict[str, Any]], rule_id: str, name: str, column: str | None, reason: str
) -> None:
    contract, messages = load(schema)
    (rule,) = keys(contract)
    assert rule == SkippedRule(
        id=rule_id,
        name=name,
        severity="P1",
        origin=RuleOrigin.SCHEMA,
        dimension="consistency",
        column=column,
        schema_check=SchemaCheck.RELATIONSHIP,
        reason=reason,
        sources=(pointer(rule_id),),
    )
    assert messages == [f"{rule_id} ({name}): {reason}; skipping"]
    assert contract.lint_notes == ()  # nothing to give the run: the note is for checkable keys only


# --- the corpus ---------------------------------------------------------------------------------------


def declared(raw: Mapping[str, Any], path: str) -> Iterator[str]:
    """The rule ids of the relationships a schema object or property declares, its struct fields' too."""
    for j, relation in enumerate(raw.get("relationships") or []):
        if isinstance(relation, Mapping):
            yield f"{path}.relationships[{j}]"
    for k, prop in enumerate(raw.get("properties") or []):
        if isinstance(prop, Mapping):
            yield from declared(prop, f"{path}.properties[{k}]")


def test_every_corpus_relationship_is_a_foreign_key_rule_or_skipped_with_a_reason(corpus: Path) -> None:
    files = sorted(p for p in corpus.glob("*/*") if p.suffix in (".yaml", ".yml") and "relationships" in p.read_text())
    assert files, "the corpus has contracts with relationships"
    seen = 0
    for path in files:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ContractWarning)
            contracts = load_contracts(path)
        document = yaml.safe_load(path.read_text())
        assert len(contracts) == len(document["schema"]), path
        for index, (contract, raw) in enumerate(zip(contracts, document["schema"], strict=True)):
            expected = list(declared(raw, f"schema[{index}]"))
            found = keys(contract)
            assert [r.id for r in found] == expected, path
            for rule in found:
                if isinstance(rule, MetricRule):
                    assert rule.metric.kind is MetricKind.MISSING_REFERENCE_COUNT, rule.id
                    assert rule.metric.reference and len(rule.metric.columns) == len(rule.metric.reference_columns)
                    assert rule.threshold == NONE_MISSING
                else:
                    assert isinstance(rule, SkippedRule) and rule.reason, rule.id
            seen += len(found)
    assert seen >= 6  # four documents hold six foreign keys


# --- inside arrays -----------------------------------------------------------------------------------------


def test_a_relationship_inside_array_items_is_skipped_with_the_reason() -> None:
    lines = {
        "name": "lines",
        "logicalType": "array",
        "items": {
            "logicalType": "object",
            "properties": [{"name": "sku", "logicalType": "string", "relationships": [{"to": "products.sku"}]}],
        },
    }
    contract, messages = load([{"name": "orders", "properties": [lines]}])
    where = "schema[0].properties[0].items.properties[0].relationships[0]"
    name = "foreign key schema[0].properties[0].items.properties[0] → products.sku"
    assert [(r.id, r.name, r.reason) for r in contract.skipped_rules] == [(where, name, IN_COLLECTIONS)]
    assert messages == [f"{where} ({name}): {IN_COLLECTIONS}; skipping"]


def test_a_relationship_inside_a_map_is_skipped_with_the_reason() -> None:
    prices = {
        "name": "prices",
        "logicalType": "map",
        "map": {
            "key": {"logicalType": "string", "relationships": [{"to": "products.sku"}]},
            "value": {"logicalType": "number"},
        },
    }
    contract, messages = load([{"name": "orders", "properties": [prices]}])
    where = "schema[0].properties[0].map.key.relationships[0]"
    name = "foreign key schema[0].properties[0].map.key → products.sku"
    assert [(r.id, r.name, r.reason) for r in contract.skipped_rules] == [(where, name, IN_COLLECTIONS)]
    assert messages == [f"{where} ({name}): {IN_COLLECTIONS}; skipping"]


def test_to_may_name_the_referenced_column_by_its_physical_name() -> None:
    users = {"name": "users", "properties": [{"name": "id", "physicalName": "user_pk"}]}
    orders = {"name": "orders", "properties": [{"name": "uid", "relationships": [{"to": "users.user_pk"}]}]}
    contract, messages = load([orders, users])
    (rule,) = keys(contract)
    assert isinstance(rule, MetricRule) and rule.metric.reference_columns == ("user_pk",)
    assert messages == []


def test_no_note_asks_for_a_dataset_the_contracts_own_server_supplies() -> None:
    schema = [
        {"name": "orders", "properties": [{"name": "user_id", "relationships": [{"to": "users.id"}]}]},
        {"name": "users", "properties": [{"name": "id"}]},
    ]
    servers = [{"server": "here", "type": "local", "path": "/data/{model}.parquet", "format": "parquet"}]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContractWarning)
        on_server = Contract.from_odcs(odcs_document(schema, servers=servers))[0]
    unreadable = [{"server": "warehouse", "type": "bigquery", "project": "p", "dataset": "d"}]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContractWarning)
        on_bigquery = Contract.from_odcs(odcs_document(schema, servers=unreadable))[0]
    alone, _ = load(schema)
    assert on_server.lint_notes == ()
    expected = (note("schema[0].properties[0].relationships[0]", "foreign key user_id → users.id", "users"),)
    assert alone.lint_notes == on_bigquery.lint_notes == expected  # a server dqx-gx cannot read supplies nothing
