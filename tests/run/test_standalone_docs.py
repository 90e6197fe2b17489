"""The data docs site dqx-gx builds opens with no network: nothing remote is loaded, every local link
resolves, the vendored files keep their licences, and a run's page names the contract and shows what
dqx-gx reports. Sites are built for real, by a file project and by an ephemeral context."""

from __future__ import annotations

import dataclasses
import html
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import great_expectations as gx
import pytest
from great_expectations.data_context import AbstractDataContext
from pyspark.sql import SparkSession

from dqx_gx import Contract, ContractRun, run_contract
from dqx_gx.run.docs import run_pages
from dqx_gx.run.site_assets import LIBRARIES
from tests.documents import one_table
from tests.expectations.test_orders_contract import NOW

ROWS = [(1, "a@x.io", 5), (2, "b@x.io", -3), (3, "c@x.io", 7)]
SCHEMA = "id int, email string, amount int"
CSS_URL = re.compile(r"""url\(\s*['"]?([^'")]+)""")


def contract() -> Contract:
    document = one_table(
        [
            {"name": "id", "logicalType": "integer"},
            {"name": "email", "logicalType": "string", "classification": "restricted"},
            {
                "name": "amount",
                "logicalType": "integer",
                "quality": [
                    {
                        "name": "amount positive",
                        "metric": "invalidValues",
                        "arguments": {"validValues": [5, 7]},
                        "mustBe": 0,
                        "severity": "error",
                    }
                ],
            },
        ],
        [{"name": "custom sql", "type": "sql", "query": "SELECT COUNT(*) FROM t", "mustBe": 3}],
        id="orders-7",
        version="3.1.4",
        servers=[{"server": "lake", "type": "local", "path": "/data/t.parquet", "format": "parquet"}],
    )
    # ODCS has no owner field; the native format has (``owner:``); the page shows the model's
    return dataclasses.replace(document, owner="team-orders")


class Links(HTMLParser):
    """Every reference of a page: (tag, attribute, value), and the text of its style elements."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, str, str]] = []
        self.styles: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._in_style = tag == "style"
        for name, value in attrs:
            if name in {"src", "href"} and value is not None:
                self.found.append((tag, name, value))
            if name == "style" and value:
                self.styles.append(value)

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.styles.append(data)


def parsed(page: Path) -> Links:
    links = Links()
    links.feed(page.read_text(encoding="utf-8"))
    return links


def run(spark: SparkSession, context: AbstractDataContext) -> ContractRun:
    with pytest.warns(match="type 'sql' rules run only when allowed"):
        return run_contract(
            contract(), spark.createDataFrame(ROWS, SCHEMA), now=NOW, context=context, data_docs=True, samples=5
        )


def file_site(spark: SparkSession, root: Path) -> tuple[Path, ContractRun, AbstractDataContext]:
    context = gx.get_context(mode="file", project_root_dir=str(root))
    return root / "gx" / "uncommitted" / "data_docs" / "local_site", run(spark, context), context


def ephemeral_site(spark: SparkSession, root: Path) -> tuple[Path, ContractRun, AbstractDataContext]:
    """An ephemeral context's own site (GX puts it in a temporary folder)."""
    context = gx.get_context(mode="ephemeral")
    site = Path(context.config.data_docs_sites["local_site"]["store_backend"]["base_directory"])
    return site, run(spark, context), context


@pytest.fixture(params=[file_site, ephemeral_site], ids=["file", "ephemeral"], scope="module")
def built(
    request: pytest.FixtureRequest, spark: SparkSession, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, ContractRun, AbstractDataContext]:
    return request.param(spark, tmp_path_factory.mktemp(request.param.__name__))  # type: ignore[no-any-return]


def remote(value: str) -> bool:
    return urlsplit(value.strip()).scheme in {"http", "https"} or value.strip().startswith("//")


def local_target(base: Path, value: str) -> Path | None:
    """The file a relative reference names, or None for an anchor, data: URI, or the like."""
    parts = urlsplit(value.strip())
    if parts.scheme or value.startswith(("#", "//")) or not parts.path:
        return None
    return (base / unquote(parts.path)).resolve()


def test_no_page_or_style_sheet_loads_anything_remote(built: tuple[Path, ContractRun, AbstractDataContext]) -> None:
    site, _, _ = built
    pages = list(site.rglob("*.html"))
    assert len(pages) >= 3  # the index, the suite, the run
    for page in pages:
        links = parsed(page)
        loaded = [value for tag, _, value in links.found if tag in {"script", "link", "img"}]
        assert loaded, page  # the parser saw the page's scripts and style sheets
        assert not [value for value in loaded if remote(value)], page
        assert not [url for style in links.styles for url in CSS_URL.findall(style) if remote(url)], page
        assert not [value for tag, _, value in links.found if tag == "a" and remote(value)], page  # prefer none
    style_sheets = list(site.rglob("*.css"))
    assert any(sheet.name == "all.min.css" for sheet in style_sheets)
    for sheet in style_sheets:
        assert not [url for url in CSS_URL.findall(sheet.read_text(encoding="utf-8")) if remote(url)], sheet


def test_every_local_link_and_font_resolves_to_a_file_of_the_site(
    built: tuple[Path, ContractRun, AbstractDataContext],
) -> None:
    site, _, _ = built
    checked = 0
    for page in site.rglob("*.html"):
        for tag, attribute, value in parsed(page).found:
            target = local_target(page.parent, value)
            if target is not None:
                assert target.is_file(), f"{page.relative_to(site)}: <{tag} {attribute}={value!r}>"
                assert site.resolve() in target.parents
                checked += 1
    for sheet in site.rglob("*.css"):
        for url in CSS_URL.findall(sheet.read_text(encoding="utf-8")):
            target = local_target(sheet.parent, url)
            if target is not None:
                assert target.is_file(), f"{sheet.relative_to(site)}: url({url})"
                checked += 1
    assert checked > 20


def test_a_run_page_under_a_dotted_suite_name_finds_the_favicon_and_the_vendored_files(
    built: tuple[Path, ContractRun, AbstractDataContext],
) -> None:
    site, contract_run, _ = built
    assert "." in contract_run.suite_name  # GX nests the page one folder per dot
    (page,) = site.joinpath("validations").rglob("*.html")
    references = {value for _, _, value in parsed(page).found}
    depth = len(page.relative_to(site).parts) - 1
    assert f"{'../' * depth}static/images/favicon.ico" in references
    for script in ("jquery/jquery.min.js", "bootstrap/js/bootstrap.bundle.min.js"):
        assert f"{'../' * depth}static/vendor/{script}" in references


def test_the_vendored_files_come_with_their_licences(built: tuple[Path, ContractRun, AbstractDataContext]) -> None:
    site, _, _ = built
    vendor = site / "static" / "vendor"
    for library in LIBRARIES:
        notice = (vendor / library.folder / "NOTICE.txt").read_text(encoding="utf-8")
        assert library.distribution in notice
        for name in library.files:
            assert (vendor / library.folder / name).read_bytes() == (library.source / name).read_bytes()
    assert "jQuery v3.7.1" in (vendor / "jquery" / "NOTICE.txt").read_text(encoding="utf-8")
    assert "Licensed under MIT" in (vendor / "bootstrap" / "NOTICE.txt").read_text(encoding="utf-8")
    assert "SIL OFL 1.1" in (vendor / "font-awesome" / "LICENSE.txt").read_text(encoding="utf-8")


def text_of(page: Path) -> str:
    source = re.sub(r"<(script|style)\b.*?</\1>", " ", page.read_text(encoding="utf-8"), flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", source)))


def test_the_run_page_names_the_contract_and_shows_what_dqx_gx_reports(
    built: tuple[Path, ContractRun, AbstractDataContext],
) -> None:
    site, contract_run, _ = built
    assert contract_run.outcome == "rejected"
    (page,) = site.joinpath("validations").rglob("*.html")
    text = text_of(page)
    assert "Contract Name c ID orders-7 Version 3.1.4 Owner team-orders Dataset t Servers lake (local)" in text
    # the P0 rule: name, expression in words, severity; its observed value; a failed row, the restricted column hidden
    assert "amount positive : num_rows() - count_values(amount, [5, 7]) = 0 ( P0 )" in text
    assert "id email amount 2 *** -3 1" in text
    assert "b@x.io" not in page.read_text(encoding="utf-8")
    assert "custom sql type 'sql' rules run only when allowed" in text


def test_the_index_lists_the_run_without_any_script(built: tuple[Path, ContractRun, AbstractDataContext]) -> None:
    site, contract_run, context = built
    index = site / "index.html"
    (page,) = site.joinpath("validations").rglob("*.html")
    hrefs = [value for tag, _, value in parsed(index).found if tag == "a"]
    assert page.relative_to(site).as_posix() in [unquote(href) for href in hrefs]
    row = re.search(r"<tbody>(.*?)</tbody>", index.read_text(encoding="utf-8"), re.S)
    assert row is not None and "c @ 2026-11-22T12:00:00Z" in row.group(1)  # drawn as HTML, not by bootstrap-table
    assert "bootstrapTable(" not in index.read_text(encoding="utf-8")
    (url,) = run_pages(context, contract_run.checkpoint_result.run_results)
    assert Path(unquote(urlsplit(url).path)) == page
