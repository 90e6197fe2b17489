"""Data docs that say what dqx-gx says about a run (issue: "honest data docs").

GX's validation page marks a run "Failed" in red as soon as any expectation failed, counts only the
expectations that ran, and names neither the data asset of a DataFrame batch nor (without a run
name) the run. A dqx-gx run is a gate: P0 failures reject the batch, P1–P3 failures and skipped
rules pass it with warnings. While dqx-gx builds data docs (:func:`dqx_data_docs`), the context's
sites render validation pages and the index with the classes below, through GX's own site
configuration (``site_section_builders``/``site_index_builder``); GX's stored results are not
changed. Outside the block, GX's default pages are built as usual. The pages built inside it load
only files inside the site (:mod:`dqx_gx.run.site_assets`), and a run's page names the contract.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator
from typing import Any

from great_expectations.data_context import AbstractDataContext
from great_expectations.render import (
    RenderedBootstrapTableContent,
    RenderedStringTemplateContent,
    RenderedTableContent,
    RenderedTabsContent,
)
from great_expectations.render.components import RenderedSectionContent
from great_expectations.render.renderer import SiteIndexPageRenderer, ValidationResultsPageRenderer
from great_expectations.render.renderer.site_builder import DefaultSiteIndexBuilder

from dqx_gx.actions.outcomes import rule_status
from dqx_gx.contract.model import Contract
from dqx_gx.rules.severity import Outcome, gate_outcome
from dqx_gx.run.site_assets import DqxIndexPageView, DqxPageView, copy_site_assets

OUTCOME_TEXT: dict[Outcome, tuple[str, str]] = {
    "passed": ("Passed", '<i class="fas fa-check-circle text-success" aria-hidden="true"></i>'),
    "passed_with_warnings": (
        "Passed with warnings",
        '<i class="fas fa-exclamation-triangle text-warning" aria-hidden="true"></i>',
    ),
    "rejected": ("Rejected", '<i class="fas fa-times text-danger" aria-hidden="true"></i>'),
}


def run_verdict(validation_results: Any) -> dict[str, Any] | None:
    """The dqx-gx verdict of a stored suite validation result (``meta.dqx``), or None for other results."""
    found = (validation_results.meta or {}).get("dqx")
    return found if isinstance(found, dict) else None


def verdict_meta(results: list[Any], skipped: list[dict[str, str]], contract: Contract) -> dict[str, Any]:
    """``meta.dqx`` of a suite validation result: the contract, the gate outcome by severity and the
    skipped rules."""
    failed = [
        (evr.expectation_config.meta or {}).get("dqx", {}).get("severity", "P1")
        for evr in results
        if evr.expectation_config is not None and rule_status(evr)[0] == "FAILED"
    ]
    return {
        "contract": contract.check_name,
        "name": contract.name,
        "dataset": contract.dataset,
        "contract_id": contract.contract_id,
        "version": contract.version,
        "owner": contract.owner,
        "servers": [f"{server.name} ({server.type})" for server in contract.servers],
        "outcome": gate_outcome(failed, len(skipped)),
        "skipped": skipped,
    }


class DqxValidationResultsPageRenderer(ValidationResultsPageRenderer):
    """GX's validation page with the gate outcome, the data asset, and the rules that did not run."""

    def render(self, validation_results: Any, suite_parameters: Any = None) -> Any:
        document = super().render(validation_results, suite_parameters)
        verdict = run_verdict(validation_results)
        if verdict is None:
            return document
        overview = document.sections[0]
        header, statistics = overview.content_blocks[0], overview.content_blocks[1]
        text, icon = OUTCOME_TEXT[verdict["outcome"]]
        params = header.subheader.string_template["params"]
        params.update(success=text, html_success_icon=icon, data_asset_name=verdict["dataset"])
        skipped = verdict["skipped"]
        statistics.table.append(["Skipped rules", len(skipped)])
        if skipped:
            document.sections.insert(1, _skipped_section(skipped))
        document.sections.insert(1, _contract_section(verdict))
        return document


class DqxSiteIndexBuilder(DefaultSiteIndexBuilder):
    """GX's index, marking a run that passed with warnings as passed (no red mark) like its page;
    each build also writes the scripts, style sheets and fonts the pages load into the site."""

    def build(self, skip_and_clean_missing: bool = True, build_index: bool = True) -> Any:
        copy_site_assets(self.target_store)
        return super().build(skip_and_clean_missing, build_index)

    def add_resource_info_to_index_links_dict(  # noqa: PLR0917 - GX's signature
        self,
        index_links_dict: Any,
        expectation_suite_name: Any,
        section_name: Any,
        batch_identifier: Any = None,
        run_id: Any = None,
        validation_success: Any = None,
        run_time: Any = None,
        run_name: Any = None,
        asset_name: Any = None,
        batch_kwargs: Any = None,
        batch_spec: Any = None,
    ) -> Any:
        if section_name == "validations" and run_id is not None:
            stored = self.data_context.get_validation_result(
                expectation_suite_name=expectation_suite_name, run_id=run_id, batch_identifier=batch_identifier
            )
            verdict = run_verdict(stored) if stored else None
            if verdict is not None:
                validation_success = verdict["outcome"] != "rejected"
                asset_name = asset_name or verdict["dataset"]
        return super().add_resource_info_to_index_links_dict(  # type: ignore[no-untyped-call]
            index_links_dict,
            expectation_suite_name,
            section_name,
            batch_identifier=batch_identifier,
            run_id=run_id,
            validation_success=validation_success,
            run_time=run_time,
            run_name=run_name,
            asset_name=asset_name,
            batch_kwargs=batch_kwargs,
            batch_spec=batch_spec,
        )


def _skipped_section(skipped: list[dict[str, str]]) -> RenderedSectionContent:
    rows = [[entry["rule"], entry["reason"]] for entry in skipped]
    return _table_section("Skipped rules", "Skipped rules (not run)", ["Rule", "Why it did not run"], rows)


def _contract_section(verdict: dict[str, Any]) -> RenderedSectionContent:
    """The contract the run checked: its name, id, version, owner, dataset and declared servers."""
    rows = [
        ["Name", verdict.get("name") or verdict["contract"]],
        ["ID", verdict.get("contract_id") or "-"],
        ["Version", verdict.get("version") or "-"],
        ["Owner", verdict.get("owner") or "-"],
        ["Dataset", verdict["dataset"]],
        ["Servers", ", ".join(verdict.get("servers") or []) or "-"],
    ]
    return _table_section("Contract", "Contract", [], rows)


def _table_section(name: str, title: str, header_row: list[str], rows: list[list[Any]]) -> RenderedSectionContent:
    return RenderedSectionContent(
        section_name=name,
        content_blocks=[
            RenderedTableContent(
                content_block_type="table",
                header=RenderedStringTemplateContent(
                    content_block_type="string_template",
                    string_template={"template": title, "tag": "h5"},
                ),
                header_row=header_row,
                table=rows,
                styling={"classes": ["col-12", "table-responsive"], "body": {"classes": ["table", "table-sm"]}},
            )
        ],
    )


class DqxSiteIndexPageRenderer(SiteIndexPageRenderer):
    """GX's index, its tables written out as HTML rows (newest run first) rather than left for
    bootstrap-table to draw in the browser: the index lists the runs with no script at all."""

    @classmethod
    def render(cls, index_links_dict: Any) -> Any:
        document = super().render(index_links_dict)  # type: ignore[no-untyped-call]
        for section in document.sections if document else []:
            for block in section.content_blocks:
                if isinstance(block, RenderedTabsContent):
                    for tab in block.tabs:
                        if isinstance(tab["tab_content"], RenderedBootstrapTableContent):
                            tab["tab_content"] = _static_table(tab["tab_content"])
        return document


def _static_table(table: RenderedBootstrapTableContent) -> RenderedTableContent:
    """The same columns and rows, sorted as bootstrap-table would first show them; each row's link on
    its first plain-text cell (the run time, or the suite name)."""
    options, columns = table.table_options or {}, table.table_columns
    sort = next((c.get("sortName", c["field"]) for c in columns if c["field"] == options.get("sortName")), None)
    rows = table.table_data
    if sort is not None:
        rows = sorted(rows, key=lambda row: str(row.get(sort) or ""), reverse=options.get("sortOrder") == "desc")
    return RenderedTableContent(
        table=[_static_row(row, [c["field"] for c in columns]) for row in rows],
        header_row=[c["title"] for c in columns],
        styling={**(table.styling or {}), "body": {"classes": ["table", "table-sm", "table-hover"]}},
    )


def _static_row(row: dict[str, Any], fields: list[str]) -> list[Any]:
    cells = [row.get(field) for field in fields]
    link = row.get("_table_row_link_path")
    plain = next((i for i, cell in enumerate(cells) if isinstance(cell, str)), None)
    if link and plain is not None:
        cells[plain] = RenderedStringTemplateContent(
            content_block_type="string_template",
            string_template={
                "template": "$text",
                "params": {"text": cells[plain]},
                "tag": "a",
                "styling": {"attributes": {"href": link}},
            },
        )
    return cells


@contextlib.contextmanager
def dqx_data_docs(context: AbstractDataContext) -> Iterator[None]:
    """Inside the block, ``context``'s data docs sites render with the classes above and the views of
    :mod:`dqx_gx.run.site_assets`, without GX's calls to action (links to its website) (GX's site
    configuration, for this context only); restored afterwards."""
    sites = list((context.config.data_docs_sites or {}).values())
    keys = ("site_section_builders", "site_index_builder", "show_how_to_buttons")
    saved = [{key: copy.deepcopy(site[key]) for key in keys if key in site} for site in sites]
    page_view = _configured(DqxPageView)
    for site in sites:
        sections = site.setdefault("site_section_builders", {})
        for name in ("expectations", "validations", "profiling"):
            if isinstance(sections.setdefault(name, {}), dict):
                sections[name]["view"] = page_view
        if isinstance(sections["validations"], dict):
            sections["validations"]["renderer"] = _configured(DqxValidationResultsPageRenderer)
        index = site.setdefault("site_index_builder", {"class_name": "DefaultSiteIndexBuilder"})
        index.update(_configured(DqxSiteIndexBuilder))
        index.update(renderer=_configured(DqxSiteIndexPageRenderer), view=_configured(DqxIndexPageView))
        site["show_how_to_buttons"] = False
    try:
        yield
    finally:
        for site, before in zip(sites, saved, strict=True):
            for key in keys:
                site.pop(key, None)
            site.update(before)


def _configured(cls: type) -> dict[str, str]:
    """How GX's site configuration names a class it loads."""
    return {"module_name": cls.__module__, "class_name": cls.__name__}


def run_pages(context: AbstractDataContext, run_results: Any) -> list[str]:
    """The URLs of the data docs pages of a checkpoint run's validation results, in every site."""
    return [
        str(site["site_url"])
        for key in run_results
        for site in context.get_docs_sites_urls(resource_identifier=key)
        if site.get("site_url")
    ]
