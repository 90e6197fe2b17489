"""dqx-gx coverage: every element of a contract document, by its JSON pointer, and what becomes of it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dqx_gx import ContractValidationError, ContractWarning
from dqx_gx.contract import load_contracts, read_document
from dqx_gx.coverage import COLUMN_TYPE_EXPECTATION, SQL_EXPECTATION, Coverage, Element, coverage
from dqx_gx.expectations import build_suite
from dqx_gx.rules.opt_in import SQL_OFF
from tests.conftest import CORPUS, EXAMPLES, ROOT, dedent
from tests.run.test_cli import run

ORDERS = EXAMPLES / "orders" / "orders.odcs.yaml"
CORPUS_FILES = sorted(p for p in CORPUS.glob("*/*") if p.suffix in (".yaml", ".yml")) if CORPUS.is_dir() else []


def covered(source: Any, **options: Any) -> Coverage:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContractWarning)
        return coverage(source, **options)


def at(report: Coverage, path: str) -> Element:
    (element,) = [e for e in report.elements if e.path == path]
    return element


def checks(element: Element) -> list[tuple[str, str]]:
    return [(c.type, c.rule) for c in element.expectations]


# --- the example contracts ----------------------------------------------------------------------------


def test_orders_example_element_by_element() -> None:
    report = covered(ORDERS)
    assert report.contract == str(ORDERS)
    required = at(report, "/schema/0/properties/0/required")
    assert (required.status, checks(required)) == (
        "enforced",
        [("expect_dqx_null_count", "order_id has no nulls (required)")],
    )
    assert checks(at(report, "/schema/0/properties/0/logicalType")) == [
        (COLUMN_TYPE_EXPECTATION, "order_id has type integer")
    ]
    assert checks(at(report, "/schema/0/quality/1")) == [("expect_dqx_duplicate_count", "composite_key_unique")]
    assert checks(at(report, "/schema/0/properties/1/quality/1")) == [
        ("expect_dqx_cardinality", "status_low_cardinality")
    ]
    sql = at(report, "/schema/0/quality/3")
    assert (sql.status, sql.expectations, sql.reason) == ("skipped", (), SQL_OFF)
    text = at(report, "/schema/0/properties/0/quality/1")
    assert (text.status, text.element) == ("documented", "text rule 'order_id_description'")
    not_required = at(report, "/schema/0/properties/3/required")
    assert (not_required.status, not_required.reason) == ("documented", "required: false asks nothing")
    assert checks(at(report, "/slaProperties/0")) == [("expect_dqx_freshness", "SLA: Freshness check")]
    assert at(report, "/slaProperties/1").status == "documented"  # retention without an element: metadata
    assert at(report, "/schema/0/quality/0/severity").status == "applied"
    assert at(report, "/schema/0").status == "applied"
    assert at(report, "/description").status == "documented"
    assert report.counts == {"enforced": 25, "applied": 20, "documented": 7, "skipped": 1}


def test_allow_sql_enforces_the_sql_rule() -> None:
    sql = at(covered(ORDERS, allow_sql=True), "/schema/0/quality/3")
    assert (sql.status, checks(sql), sql.reason) == ("enforced", [(SQL_EXPECTATION, "fraud_sql_check")], None)


def test_the_expectation_types_are_the_suite_builders() -> None:
    # Coverage names expectations without importing GX; the suite builder must make exactly those.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContractWarning)
        (contract,) = load_contracts(ORDERS)
    suite = build_suite(contract, allow_sql=True).suite
    built = sorted((e.expectation_type, e.meta["dqx"]["rule"]) for e in suite.expectations)
    listed = sorted({(c.type, c.rule) for e in covered(ORDERS, allow_sql=True).elements for c in e.expectations})
    assert listed == built


def test_native_sla_example() -> None:
    report = covered(EXAMPLES / "sla" / "daily_orders.dqx.yaml")
    assert checks(at(report, "/sla")) == [("expect_dqx_freshness", "SLA: Freshness check")]
    assert checks(at(report, "/columns/0/nullable")) == [
        ("expect_dqx_null_count", "order_date has no nulls (required)")
    ]
    assert checks(at(report, "/columns/0/type")) == [(COLUMN_TYPE_EXPECTATION, "order_date has type date")]
    assert at(report, "/columns/6/nullable").status == "documented"  # nullable: true
    assert checks(at(report, "/checks/0")) == [
        ("expect_dqx_missing_partitions", "No missing partitions in last 7 days")
    ]
    assert at(report, "/metadata/partitioned_by").status == "applied"
    assert at(report, "/owner").status == "documented"


@pytest.mark.parametrize("path", sorted((EXAMPLES / "sla").glob("*.yaml")), ids=lambda p: p.name)
def test_every_sla_example_enforces_its_freshness(path: Path) -> None:
    report = covered(path)
    sla = "/sla" if path.name.endswith(".dqx.yaml") else "/slaProperties/0"
    assert [c.type for c in at(report, sla).expectations] == ["expect_dqx_freshness"]
    assert [e.path for e in report.elements if e.status == "skipped"] == []  # array elements' fields run too
    if path.name.startswith("daily_orders.odcs"):
        item_id = at(report, "/schema/0/properties/9/items/properties/0/required")
        assert checks(item_id) == [("expect_dqx_null_count", "line_items[*].item_id has no nulls (required)")]


# --- declarations -------------------------------------------------------------------------------------

ODCS_HEAD = """
apiVersion: v3.1.0
kind: DataContract
id: c1
version: 1.0.0
status: active
"""


def odcs(body: str) -> str:
    return dedent(ODCS_HEAD) + dedent(body)


def test_unique_and_primary_key_are_two_elements_served_by_one_rule() -> None:
    report = covered(
        odcs("""
        schema:
          - name: t
            properties:
              - {name: id, logicalType: integer, primaryKey: true, unique: true}
              - {name: email, logicalType: string, unique: true, classification: restricted}
              - {name: note, logicalType: string, classification: public}
        """)
    )
    key = [("expect_dqx_duplicate_count", "primary key (id) is unique")]
    assert checks(at(report, "/schema/0/properties/0/unique")) == key
    # a primary key is never NULL either: the same element is enforced by the null count it implies
    assert checks(at(report, "/schema/0/properties/0/primaryKey")) == [
        ("expect_dqx_null_count", "id has no nulls (part of the primary key)"),
        *key,
    ]
    assert checks(at(report, "/schema/0/properties/1/unique")) == [("expect_dqx_duplicate_count", "email is unique")]
    assert at(report, "/schema/0/properties/1/classification").status == "applied"
    assert at(report, "/schema/0/properties/2/classification").status == "documented"


def test_a_composite_primary_key_enforces_each_column_declaration() -> None:
    report = covered(
        odcs("""
        schema:
          - name: t
            properties:
              - {name: a, logicalType: integer, primaryKey: true, primaryKeyPosition: 2}
              - {name: b, logicalType: integer, primaryKey: true, primaryKeyPosition: 1}
        """)
    )
    for k in (0, 1):
        assert ("expect_dqx_duplicate_count", "primary key (b, a) is unique") in checks(
            at(report, f"/schema/0/properties/{k}/primaryKey")
        )
    assert at(report, "/schema/0/properties/0/primaryKeyPosition").status == "applied"


def test_logical_type_options_each_an_element() -> None:
    report = covered(
        odcs("""
        schema:
          - name: t
            properties:
              - name: n
                logicalType: integer
                logicalTypeOptions: {minimum: 0, exclusiveMaximum: 9}
              - name: d
                logicalType: date
                logicalTypeOptions: {format: yyyy-MM-dd}
              - name: s
                logicalType: string
                customProperties: [{property: enum, value: [a, b]}]
        """)
    )
    assert checks(at(report, "/schema/0/properties/0/logicalTypeOptions/minimum")) == [
        ("expect_dqx_violation_count", "n minimum 0")
    ]
    assert checks(at(report, "/schema/0/properties/0/logicalTypeOptions/exclusiveMaximum")) == [
        ("expect_dqx_violation_count", "n exclusiveMaximum 9")
    ]
    date_format = at(report, "/schema/0/properties/1/logicalTypeOptions/format")
    assert date_format.status == "skipped"
    assert date_format.reason is not None and "describes its storage or text form" in date_format.reason
    enum = at(report, "/schema/0/properties/2/customProperties/0")  # listed beside the customProperties field
    assert checks(enum) == [("expect_dqx_unlisted_count", "s is one of its enum values")]


def test_declarations_inside_arrays_follow_the_loader() -> None:
    report = covered(
        odcs("""
        schema:
          - name: t
            properties:
              - name: tags
                logicalType: array
                items:
                  logicalType: string
                  required: true
                  quality:
                    - {type: library, metric: nullValues, mustBe: 0}
        """)
    )
    assert checks(at(report, "/schema/0/properties/0/items/logicalType")) == [
        (COLUMN_TYPE_EXPECTATION, "tags has type array<string>")
    ]
    required = at(report, "/schema/0/properties/0/items/required")
    assert (required.status, checks(required)) == (
        "enforced",
        [("expect_dqx_null_count", "tags[*] has no nulls (required)")],
    )
    rule = at(report, "/schema/0/properties/0/items/quality/0")
    assert (rule.status, checks(rule)) == ("enforced", [("expect_dqx_null_count", "tags[*] nullValues")])


def test_a_foreign_key_is_enforced_only_with_its_reference() -> None:
    contract = odcs("""
        schema:
          - name: orders
            properties:
              - name: customer_id
                logicalType: integer
                relationships: [{to: customers.id}]
        """)
    without = at(covered(contract), "/schema/0/properties/0/relationships/0")
    assert without.status == "skipped"
    assert without.reason is not None and "needs the referenced dataset 'customers'" in without.reason
    given = at(covered(contract, references=["customers"]), "/schema/0/properties/0/relationships/0")
    assert checks(given) == [("expect_dqx_missing_reference_count", "foreign key customer_id → customers.id")]


def test_several_schema_objects_all_listed_unless_one_is_chosen() -> None:
    contract = odcs("""
        schema:
          - {name: a, properties: [{name: x, logicalType: integer}]}
          - {name: b, physicalName: b_tbl, properties: [{name: y, logicalType: string}]}
        """)
    everything = [e.path for e in covered(contract).elements]
    assert "/schema/0/properties/0" in everything and "/schema/1/properties/0" in everything
    chosen = [e.path for e in covered(contract, schema="b_tbl").elements]
    assert "/schema/1/properties/0" in chosen
    assert not any(p.startswith("/schema/0") for p in chosen)
    assert "/apiVersion" in chosen
    with pytest.raises(ContractValidationError, match="--schema 'c' matches no schema object"):
        covered(contract, schema="c")


def test_sla_entries_and_servers() -> None:
    report = covered(
        odcs("""
        servers:
          - {server: prod, type: s3, location: s3://b/orders/, format: parquet}
          - {server: wh, type: snowflake, account: x, database: d, schema: s}
        slaProperties:
          - {property: availability, value: 99.9, unit: "%"}
          - {property: retention, value: 1, unit: y, element: t.ts}
        schema:
          - {name: t, properties: [{name: ts, logicalType: timestamp}]}
        support: [{channel: "#data", url: "https://example.com"}]
        """)
    )
    assert at(report, "/servers/0").status == "applied"
    assert at(report, "/servers/1").status == "documented"  # dqx-gx cannot read it
    assert at(report, "/slaProperties/0").status == "documented"
    retention = at(report, "/slaProperties/1")  # with an element the loader reports it as SKIPPED
    assert (retention.status, retention.reason) == (
        "skipped",
        "how long data is kept (the oldest value's age) is not checked yet",
    )
    assert at(report, "/support").status == "documented"


def test_a_path_escapes_slash_and_tilde() -> None:
    report = covered(
        dedent("""
        name: n
        version: "1"
        dataset: d
        description: x
        owner: o
        metadata: {"team/area~1": data}
        columns:
          - {name: x, type: int, description: an id}
        """)
    )
    assert at(report, "/metadata/team~1area~01").status == "documented"


# --- the command --------------------------------------------------------------------------------------


def test_table_output_and_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "coverage", str(ORDERS))
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"{ORDERS}: 53 elements"
    assert re.fullmatch(
        r"  skipped +/schema/0/quality/3 +sql rule 'fraud_sql_check' — type 'sql' rules run .*", lines[20]
    )
    assert lines[-1] == "25 enforced, 20 applied, 7 documented, 1 skipped"
    code, _, err = run(capsys, "coverage", str(ORDERS), "--fail-on", "skipped")
    assert (code, err) == (1, "coverage: 1 skipped (--fail-on skipped)\n")  # the status that failed it, named
    assert run(capsys, "coverage", str(ORDERS), "--fail-on", "skipped", "--allow-sql")[:3:2] == (0, "")
    assert run(capsys, "coverage", str(ORDERS), "--fail-on", "documented", "--allow-sql")[0] == 1


def test_json_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "coverage", str(ORDERS), "--output", "json")
    report = json.loads(out)
    assert code == 0
    assert (report["contract"], report["counts"]) == (
        str(ORDERS),
        {"enforced": 25, "applied": 20, "documented": 7, "skipped": 1},
    )
    assert report["elements"][0] == {
        "path": "/apiVersion",
        "element": "apiVersion",
        "status": "applied",
        "expectations": [],
        "reason": "the ODCS version the document is validated against",
    }
    required = next(e for e in report["elements"] if e["path"] == "/schema/0/properties/0/required")
    assert required["expectations"] == [{"type": "expect_dqx_null_count", "rule": "order_id has no nulls (required)"}]


def test_references_mirror_validate(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    contract = tmp_path / "fk.yaml"
    contract.write_text(
        odcs("""
        schema:
          - {name: o, properties: [{name: c, logicalType: integer, relationships: [{to: customers.id}]}]}
        """)
    )
    assert run(capsys, "coverage", str(contract), "--fail-on", "skipped")[0] == 1
    assert run(capsys, "coverage", str(contract), "--fail-on", "skipped", "--reference", "customers=data/c")[0] == 0
    assert run(capsys, "coverage", str(contract), "--fail-on", "skipped", "--reference", "customers")[0] == 0
    code, _, err = run(capsys, "coverage", str(contract), "--reference", "custmers")
    assert (code, err.strip()) == (
        2,
        "error: --reference custmers: no foreign key of the contract refers to 'custmers' (they refer to: customers)",
    )


def test_a_contract_error_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text(odcs("schema:\n  - {name: t, properties: [{name: x, logicalType: integr}]}\n"))
    code, out, err = run(capsys, "coverage", str(broken))
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert err.startswith(f"error: {broken}: ") and "unknown logicalType 'integr'" in err


@pytest.mark.slow
def test_no_spark_and_no_gx_are_imported() -> None:
    script = (
        "import sys, io, contextlib\n"
        "from dqx_gx.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
        f"    code = main(['coverage', {str(ORDERS)!r}, '--output', 'json'])\n"
        "print(code, sorted(m for m in ('pyspark', 'great_expectations') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stdout.strip() == "0 []"


# --- translate ----------------------------------------------------------------------------------------


def test_translate_stores_the_table_in_the_suite(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert run(capsys, "translate", str(ORDERS), "--gx-dir", str(tmp_path))[0] == 0
    files = sorted(p for p in (tmp_path / "gx").rglob("*") if p.is_file() and "uncommitted" not in p.parts)
    before = {p: p.read_bytes() for p in files}
    (suite_file,) = (tmp_path / "gx" / "expectations").rglob("*.json")
    stored = json.loads(suite_file.read_text())["meta"]["dqx"]["coverage"]
    assert stored["counts"] == {"enforced": 25, "applied": 20, "documented": 7, "skipped": 1}
    rows = {row["path"]: row for row in stored["elements"]}
    assert rows["/schema/0/properties/0/required"] == {
        "path": "/schema/0/properties/0/required",
        "element": "order_id required",
        "status": "enforced",
        "expectations": ["expect_dqx_null_count"],
    }
    assert rows["/schema/0/quality/3"]["reason"] == SQL_OFF
    assert run(capsys, "translate", str(ORDERS), "--gx-dir", str(tmp_path))[0] == 0
    assert {p: p.read_bytes() for p in files} == before  # translating twice changes nothing


def test_translate_knows_what_gx_refuses(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    contract = tmp_path / "gx_rules.yaml"
    contract.write_text(
        odcs("""
        schema:
          - name: t
            properties:
              - name: x
                logicalType: integer
                quality:
                  - {type: custom, engine: greatExpectations, implementation: {type: expect_column_values_to_not_be_null}}
                  - {type: custom, engine: greatExpectations, implementation: {type: expect_no_such_thing}}
        """)
    )
    listed = covered(contract)  # without GX, a GX rule is listed under the expectation it names
    assert [e.status for e in listed.elements if "/quality/" in e.path] == ["enforced", "enforced"]
    assert run(capsys, "translate", str(contract), "--gx-dir", str(tmp_path / "project"))[0] == 0
    (suite_file,) = (tmp_path / "project" / "gx" / "expectations").rglob("*.json")
    rows = {r["path"]: r for r in json.loads(suite_file.read_text())["meta"]["dqx"]["coverage"]["elements"]}
    assert rows["/schema/0/properties/0/quality/0"]["expectations"] == ["expect_column_values_to_not_be_null"]
    refused = rows["/schema/0/properties/0/quality/1"]
    assert (refused["status"], refused["reason"]) == ("skipped", "GX has no expectation 'expect_no_such_thing'")


# --- the corpus ---------------------------------------------------------------------------------------

HOLDERS = re.compile(r"(/schema/\d+|/properties/\d+|/items|/map/(key|value)|/columns/\d+)$")
"""Elements that stand for a whole object (a schema object, a property); its other keys are listed apart."""


def resolve(document: Any, pointer: str) -> Any:
    """RFC 6901, written out here so the test does not trust the code under test."""
    for escaped in pointer.split("/")[1:]:
        token = escaped.replace("~1", "/").replace("~0", "~")
        document = document[int(token)] if isinstance(document, list) else document[token]
    return document


def keys(node: Any, at: str = "") -> Iterator[str]:
    """The pointer of every key of the document (list positions lead to keys; they are not keys themselves)."""
    if isinstance(node, dict):
        for key, value in node.items():
            where = f"{at}/{str(key).replace('~', '~0').replace('/', '~1')}"
            yield where
            yield from keys(value, where)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from keys(value, f"{at}/{i}")


@pytest.mark.parametrize("path", CORPUS_FILES, ids=[f"{p.parent.name}/{p.name}" for p in CORPUS_FILES])
def test_corpus_every_element_resolves_and_no_key_is_unlisted(path: Path, corpus: Path) -> None:
    try:
        report = covered(path)
    except ContractValidationError:
        return  # refused contracts are tested in test_corpus.py
    document = read_document(path).data
    listed = [e.path for e in report.elements]
    assert len(listed) == len(set(listed))
    for pointer in listed:
        resolve(document, pointer)  # raises when the pointer names nothing
    leaves = [p for p in listed if not HOLDERS.search(p)]
    for key in keys(document):
        assert (
            key in listed
            or any(p.startswith(f"{key}/") for p in listed)  # a container whose parts are listed
            or any(key.startswith(f"{p}/") for p in leaves)  # inside a listed element
            or (key.endswith("/name") and key.removesuffix("/name") in listed)  # named by its holder
        ), f"{key} is not listed"


def test_the_documented_example_is_a_real_run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    page = (ROOT / "docs" / "coverage.md").read_text()
    example = page.split("## Example", 1)[1].split("```", 2)[1]
    command, *shown = example.strip("\n").splitlines()
    assert command == "$ dqx-gx coverage examples/orders/orders.odcs.yaml"
    monkeypatch.chdir(ROOT)
    code, out, _ = run(capsys, *command.split()[2:])
    real = out.splitlines()
    assert code == 0
    assert [line for line in shown if line != "…"] == [line for line in real if line in shown]
    assert (shown[0], shown[-1]) == (real[0], real[-1])
