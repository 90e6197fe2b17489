"""Data docs that say what dqx-gx says about a run (issue: "honest data docs").

GX's validation page marks a run "Failed" in red as soon as any expectation failed, counts only the
expectations that ran, and names neither the data asset of a DataFrame batch nor (without a run
name) the run. A dqx-gx run is a gate: P0 failures reject the batch, P1–P3 failures and skipped
rules pass it with warnings. While dqx-gx builds data docs (:func:`dqx_data_docs`), the context's
sites render validation pages and the index with the classes below, through GX's own site
configuration (``site_section_builders``/``site_index_builder``); GX's stored results are not
changed. Outside the block, GX's default pages are built as usual.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator
from typing import Any

from great_expectations.data_context import AbstractDataContext
from great_expectations.render import RenderedStringTemplateContent, RenderedTableContent
from great_expectations.render.components import RenderedSectionContent
from great_expectations.render.renderer import ValidationResultsPageRenderer
from great_expectations.render.renderer.site_builder import DefaultSiteIndexBuilder

from dqx_gx.rules.severity import Outcome, gate_outcome

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


def verdict_meta(results: list[Any], skipped: list[dict[str, str]], contract: str, dataset: str) -> dict[str, Any]:
    """``meta.dqx`` of a suite validation result: the gate outcome by severity and the skipped rules."""
    failed = [
        (evr.expectation_config.meta or {}).get("dqx", {}).get("severity", "P1")
        for evr in results
        if not evr.success and evr.expectation_config is not None
    ]
    return {
        "contract": contract,
        "dataset": dataset,
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
        return document


class DqxSiteIndexBuilder(DefaultSiteIndexBuilder):
    """GX's index, marking a run that passed with warnings as passed (no red mark) like its page."""

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
    return RenderedSectionContent(
        section_name="Skipped rules",
        content_blocks=[
            RenderedTableContent(
                content_block_type="table",
                header=RenderedStringTemplateContent(
                    content_block_type="string_template",
                    string_template={"template": "Skipped rules (not run)", "tag": "h5"},
                ),
                header_row=["Rule", "Why it did not run"],
                table=[[entry["rule"], entry["reason"]] for entry in skipped],
                styling={"classes": ["col-12", "table-responsive"], "body": {"classes": ["table", "table-sm"]}},
            )
        ],
    )


@contextlib.contextmanager
def dqx_data_docs(context: AbstractDataContext) -> Iterator[None]:
    """Inside the block, ``context``'s data docs sites render with the classes above (GX's site
    configuration, for this context only); restored afterwards."""
    sites = list((context.config.data_docs_sites or {}).values())
    keys = ("site_section_builders", "site_index_builder")
    saved = [{key: copy.deepcopy(site[key]) for key in keys if key in site} for site in sites]
    for site in sites:
        site.setdefault("site_section_builders", {}).setdefault("validations", {})["renderer"] = {
            "module_name": __name__,
            "class_name": DqxValidationResultsPageRenderer.__name__,
        }
        index = site.setdefault("site_index_builder", {"class_name": "DefaultSiteIndexBuilder"})
        index.update(module_name=__name__, class_name=DqxSiteIndexBuilder.__name__)
    try:
        yield
    finally:
        for site, before in zip(sites, saved, strict=True):
            for key in keys:
                site.pop(key, None)
            site.update(before)
