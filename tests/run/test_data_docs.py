"""Data docs say what dqx-gx says: the gate outcome, the data asset, the run, and the rules that did not run."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import great_expectations as gx
import pytest
from great_expectations.data_context.types.resource_identifiers import ValidationResultIdentifier
from pyspark.sql import SparkSession

from dqx_gx import Contract, run_contract
from tests.documents import one_table
from tests.expectations.test_orders_contract import NOW

pytestmark = pytest.mark.compat  # .ci/run's version lanes run it

ROWS = [(1, "a"), (2, None), (3, "c")]


def contract(severity: str, *, unique_id: bool = False) -> Contract:
    return one_table(
        [
            {"name": "id", "logicalType": "integer", **({"unique": True} if unique_id else {})},
            {
                "name": "name",
                "logicalType": "string",
                "quality": [{"name": "name nulls", "metric": "nullValues", "mustBe": 0, "severity": severity}],
            },
        ],
        [{"name": "custom sql", "type": "sql", "query": "SELECT COUNT(*) FROM t", "mustBe": 3}],
    )


def site_of(project: Path) -> Path:
    """The folder of a file project's local data docs site."""
    return project / "gx" / "uncommitted" / "data_docs" / "local_site"


def page_text(project: Path) -> tuple[str, str]:
    """The validation page as text, and the index page's HTML."""
    site = site_of(project)
    (page,) = list((site / "validations").rglob("*.html"))
    text = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page.read_text())))
    return text, (site / "index.html").read_text()


def run_with_docs(spark: SparkSession, context: Any, severity: str, rows: list[tuple[Any, ...]] = ROWS) -> Any:
    """One run of :func:`contract` on ``rows`` into ``context``'s data docs (its SQL rule is skipped); a repeated id
    breaks its uniqueness."""
    with pytest.warns(match="type 'sql' rules run only when allowed"):
        return run_contract(
            contract(severity, unique_id=len({row[0] for row in rows}) < len(rows)),
            spark.createDataFrame(rows, "id int, name string"),
            now=NOW,
            context=context,
            data_docs=True,
        )


@pytest.mark.parametrize(
    ("severity", "status", "icon"),
    [("warning", "Passed with warnings", "text-warning"), ("error", "Rejected", "text-danger")],
)
def test_the_page_shows_the_gate_outcome_asset_run_and_skipped_rules(
    spark: SparkSession, tmp_path: Path, severity: str, status: str, icon: str
) -> None:
    context = gx.get_context(mode="file", project_root_dir=str(tmp_path))
    run = run_with_docs(spark, context, severity)
    assert run.outcome == ("passed_with_warnings" if severity == "warning" else "rejected")
    text, index = page_text(tmp_path)
    assert f"Data asset: t Status: {status}" in text
    assert "Skipped rules 1" in text  # in the statistics, beside the expectations that ran
    assert "Skipped rules (not run) Rule Why it did not run custom sql type 'sql' rules run only when allowed" in text
    assert "c @ 2026-11-22T12:00:00Z" in text  # the run's name: contract and time
    page_html = next((site_of(tmp_path) / "validations").rglob("*.html")).read_text()
    assert icon in page_html
    assert ("text-danger" in index) == (severity == "error")  # P1 failures are no red mark in the index either


def test_a_run_builds_its_docs_once_after_storing_its_verdict(
    spark: SparkSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checkpoint's UpdateDataDocsAction runs after dqx-gx has added the verdict and the samples to the
    stored result, not before (which built every page twice, the first time without them)."""
    context = gx.get_context(mode="file", project_root_dir=str(tmp_path))
    build, built = type(context).build_data_docs, []

    def observed(self: Any, *args: Any, **kwargs: Any) -> Any:
        keys = [k for k in kwargs.get("resource_identifiers") or [] if isinstance(k, ValidationResultIdentifier)]
        stored = [self.validation_results_store.get(key) for key in keys]
        built.append([(r.meta.get("dqx", {}).get("outcome"), _samples(r)) for r in stored])
        return build(self, *args, **kwargs)

    monkeypatch.setattr(type(context), "build_data_docs", observed)
    run = run_with_docs(spark, context, "error")
    assert run.outcome == "rejected"
    assert built == [[("rejected", [["2", None]])]]  # the row with the NULL name


def test_a_run_stores_its_result_once_already_complete(
    spark: SparkSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GX's validation definition would store the result as GX made it, and dqx-gx again with the verdict
    and the samples: serialised twice a run. It is stored once, complete."""
    context = gx.get_context(mode="file", project_root_dir=str(tmp_path))
    store = context.validation_results_store
    put, stored = type(store).set, []

    def observed(self: Any, key: Any, value: Any, **kwargs: Any) -> Any:
        stored.append((value.meta.get("dqx", {}).get("outcome"), _samples(value)))
        return put(self, key, value, **kwargs)

    monkeypatch.setattr(type(store), "set", observed)
    run_with_docs(spark, context, "error")
    assert stored == [("rejected", [["2", None]])]
    assert len(store.list_keys()) == 1


def _samples(result: Any) -> list[list[str | None]]:
    """The failed-row samples a stored validation result holds (one failing rule here), or none."""
    tables = [t for r in result.results for t in r.result.get("details", {}).get("tables", [])]
    return [list(row) for table in tables for row in table["rows"]]


def test_a_run_whose_samples_fail_still_builds_its_docs_and_raises(
    spark: SparkSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The actions wait for the samples taken after the run (a duplicates rule's, which the run's pass cannot
    take); when taking them fails, the docs (and alerts) still come, from GX's result as it stands, and the run
    raises the failure."""

    def fails(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the samples query failed")

    monkeypatch.setattr("dqx_gx.run.runner.failed_row_samples", fails)
    context = gx.get_context(mode="file", project_root_dir=str(tmp_path))
    with pytest.raises(RuntimeError, match="the samples query failed"):
        run_with_docs(spark, context, "error", [*ROWS, (1, "d")])
    assert len(list((site_of(tmp_path) / "validations").rglob("*.html"))) == 1
    text, _ = page_text(tmp_path)
    assert "Status: Failed" in text  # GX's own verdict: dqx-gx's was never stored


def test_the_docs_swap_is_scoped_to_dqx_gx_builds(spark: SparkSession, tmp_path: Path) -> None:
    context = gx.get_context(mode="file", project_root_dir=str(tmp_path))
    before = context.config.data_docs_sites
    run_with_docs(spark, context, "warning")
    assert context.config.data_docs_sites == before
    assert "site_section_builders" not in context.config.data_docs_sites["local_site"]
    # nor in the project on disk, which GX saves when a datasource is added: GX's own classes only
    reopened = gx.get_context(mode="file", project_root_dir=str(tmp_path))
    assert reopened.config.data_docs_sites == {
        "local_site": {
            "class_name": "SiteBuilder",
            "show_how_to_buttons": True,
            "store_backend": {
                "class_name": "TupleFilesystemStoreBackend",
                "base_directory": "uncommitted/data_docs/local_site/",
            },
            "site_index_builder": {"class_name": "DefaultSiteIndexBuilder"},
        }
    }
    context.build_data_docs()  # plain GX afterwards builds its own pages from the same results
    text, _ = page_text(tmp_path)
    assert "Status: Failed" in text
