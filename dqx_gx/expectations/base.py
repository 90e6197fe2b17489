"""The base of every dqx-gx expectation: one contract rule, one observed value, the bounds of docs/semantics.md,
'Operators'.

A subclass says which metrics it needs and how they combine into the observed
value (:meth:`DqxExpectation.observe`); this class decides pass/fail with
:class:`~dqx_gx.rules.threshold.Interval` — the same code the rules layer uses —
and renders the rule for data docs.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, ClassVar

from great_expectations.core.metric_domain_types import MetricDomainTypes
from great_expectations.expectations.expectation import BatchExpectation
from great_expectations.expectations.expectation_configuration import parse_result_format
from great_expectations.render import (
    CollapseContent,
    LegacyDiagnosticRendererType,
    LegacyRendererType,
    RenderedStringTemplateContent,
    RenderedTableContent,
)
from great_expectations.render.renderer.renderer import renderer
from great_expectations.validator.metric_configuration import MetricConfiguration
from great_expectations.validator.validator import ValidationDependencies
from pyspark.sql.types import StructField

from dqx_gx import gx_private
from dqx_gx.expectations.metrics import BATCH_SCHEMA
from dqx_gx.kinds import Scale
from dqx_gx.kinds.kind import REDACTED
from dqx_gx.rules.details import TABLES, Detail
from dqx_gx.rules.threshold import Interval
from dqx_gx.spark.columns import Columns

VALUE_DETAILS = frozenset({"window", TABLES})
"""Result details that are values of the column (a completeness rule's window and missing periods): left out on
a sensitive one."""


@dataclass(frozen=True)
class Observed:
    """A measured value (or a non-numeric one, such as a Spark type, with its verdict)."""

    value: Any
    details: dict[str, Any] | None = None


@dataclass(frozen=True)
class Unmeasured:
    """Why there is no value to compare: the rule fails with this reason."""

    reason: str


Observation = Observed | Unmeasured


class DqxExpectation(BatchExpectation):
    """A DQX rule on a batch; subclasses name the metric.

    Bounds are the tolerance-derived interval of the rule's operator (docs/semantics.md, 'Operators'):
    the value passes when it lies inside ``[min_value, max_value]`` (each end
    strict or not), or outside it when ``outside`` is set (``mustNotBe``,
    ``mustNotBeBetween``). No bounds: the value is recorded and always passes.
    """

    rule: str
    min_value: float | None = None
    max_value: float | None = None
    strict_min: bool = False
    strict_max: bool = False
    outside: bool = False

    domain_type: ClassVar[MetricDomainTypes] = MetricDomainTypes.TABLE
    bound_keys: ClassVar[tuple[str, ...]] = ("rule", "min_value", "max_value", "strict_min", "strict_max", "outside")
    success_keys: ClassVar[tuple[str, ...]] = bound_keys
    metric_text: ClassVar[str] = "value"
    """How data docs name the metric when the rule's own expression is not in ``meta`` (``{argument}`` filled in)."""

    def metrics_needed(self) -> dict[str, dict[str, Any]]:
        """Metric name → value kwargs this expectation reads (the batch schema is always added)."""
        raise NotImplementedError

    def metrics_read(self) -> dict[str, tuple[str, dict[str, Any]]]:
        """What :meth:`observe` finds each metric under → the metric's name and value kwargs: by default each
        of :meth:`metrics_needed` under its own name (one metric of a name at most)."""
        return {name: (name, value_kwargs) for name, value_kwargs in self.metrics_needed().items()}

    def observe(self, metrics: dict[str, Any]) -> Observation:
        raise NotImplementedError

    def get_validation_dependencies(
        self, execution_engine: Any = None, runtime_configuration: dict[str, Any] | None = None
    ) -> ValidationDependencies:
        result_format = parse_result_format((runtime_configuration or {}).get("result_format", self.result_format))
        # GX asks twice a run (for the graph, then to judge): in a run's checkpoint the second is the first's answer
        key = ("dependencies", id(self), json.dumps(result_format, sort_keys=True, default=repr))
        state = (*self.__dict__.values(), execution_engine)
        return gx_private.settled(key, self, state, lambda: self._dependencies(execution_engine, result_format))

    def _dependencies(self, execution_engine: Any, result_format: dict[str, Any]) -> ValidationDependencies:
        """The metrics this expectation reads, each on the batch's table domain.

        GX's own version rebuilds this expectation's configuration (a pydantic dump) once per success key to find
        the one runtime key it reads, result_format; and its ``get_metric_kwargs`` would rebuild it per metric."""
        if execution_engine is not None:  # before any metric is resolved: GX's map rules beside it ask no samples
            gx_private.lighter_metric_resolution(execution_engine)
        dependencies = ValidationDependencies(metric_configurations={}, result_format=result_format)
        domain = gx_private.table_domain(self.batch_id)
        for key, (name, value_kwargs) in {BATCH_SCHEMA: (BATCH_SCHEMA, {}), **self.metrics_read()}.items():
            configuration = MetricConfiguration(name, domain, gx_private.IdOnce(value_kwargs))
            dependencies.set_metric_configuration(key, configuration)
        return dependencies

    def _validate(
        self,
        metrics: dict[str, Any],
        runtime_configuration: dict[str, Any] | None = None,
        execution_engine: Any = None,
    ) -> dict[str, Any]:
        observation = self.observe(metrics)
        if isinstance(observation, Unmeasured):
            return _failed(observation.reason)
        value = observation.value
        details = dict(observation.details or {})
        if isinstance(value, float) and not math.isfinite(value):
            details["failure"] = f"the observed value is {value}, which no threshold accepts"
            return {"success": False, "result": {"observed_value": value, "details": details}}
        if not isinstance(value, int | float):
            success = not details.get("failure")
        else:
            success = self.interval.passes(float(value))
        # judged on the value, shown as *** (docs/semantics.md, 'Samples and sensitive columns')
        if (self.meta or {}).get("dqx", {}).get("sensitive"):
            kept = {k: v for k, v in details.items() if k not in VALUE_DETAILS}
            value, details = REDACTED, {**kept, "redacted": True}
        result: dict[str, Any] = {"observed_value": value}
        if details:
            result["details"] = details
        return {"success": success, "result": result}

    @property
    def interval(self) -> Interval:
        return Interval(self.min_value, self.max_value, self.strict_min, self.strict_max, self.outside)

    # --- helpers for subclasses -------------------------------------------------------------------

    @staticmethod
    def field(metrics: dict[str, Any], column: str) -> StructField | Unmeasured:
        """The batch's column named ``column`` (Spark's name rule), or why there is none."""
        columns: Columns = metrics[BATCH_SCHEMA]
        found = columns.find(column)
        return found if found is not None else Unmeasured(columns.missing(column))

    @staticmethod
    def scaled(count: int, num_rows: int, scale: Scale, what: str) -> Observation:
        """A count as the rule reports it: the count, a fraction (0–1) or a percentage (0–100) of all rows."""
        if scale is Scale.COUNT:
            return Observed(count)
        if num_rows == 0:
            return Unmeasured(f"{what} as a {scale} of all rows cannot be computed on an empty batch (0 rows)")
        return Observed(count / num_rows * (100.0 if scale is Scale.PERCENT else 1.0))

    # --- data docs ------------------------------------------------------------------------------------

    @classmethod
    @renderer(renderer_type=LegacyRendererType.PRESCRIPTIVE)
    def _prescriptive_renderer(
        cls,
        configuration: Any = None,
        result: Any = None,
        runtime_configuration: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> list[RenderedStringTemplateContent]:
        if configuration is None and result is not None:
            configuration = result.expectation_config
        kwargs_ = dict(configuration.kwargs) if configuration is not None else {}
        dqx = (configuration.meta or {}).get("dqx", {}) if configuration is not None else {}
        params = {
            "rule": kwargs_.get("rule", ""),
            "expression": dqx.get("expression") or cls.describe(kwargs_),
            "severity": dqx.get("severity", ""),
        }
        template = "$rule: $expression" + (" ($severity)" if params["severity"] else "")
        styling = (runtime_configuration or {}).get("styling") or {}
        return [
            RenderedStringTemplateContent(
                content_block_type="string_template",
                string_template={"template": template, "params": params, "styling": styling},
            )
        ]

    @classmethod
    @renderer(renderer_type=LegacyDiagnosticRendererType.UNEXPECTED_TABLE)
    def _diagnostic_unexpected_table_renderer(
        cls,
        configuration: Any = None,
        result: Any = None,
        runtime_configuration: dict[Any, Any] | None = None,
    ) -> list[RenderedTableContent | CollapseContent] | None:
        """Every detail of the result (``result.details.tables``: a completeness rule's missing partitions, the
        failed-row samples dqx-gx recorded, …), one table each; sensitive values are already ``***``."""
        details = ((result.result or {}) if result is not None else {}).get("details") or {}
        tables = [Detail.from_dict(table) for table in details.get(TABLES) or ()]
        return [
            RenderedTableContent(
                content_block_type="table",
                header=detail.heading[:1].upper() + detail.heading[1:],
                table=[["null" if value is None else value for value in row] for row in detail.rows],
                header_row=list(detail.columns),
                styling={"body": {"classes": ["table-bordered", "table-sm", "mt-3"]}},
            )
            for detail in tables
            if detail.rows
        ] or None

    @classmethod
    def subject(cls, kwargs: dict[str, Any]) -> str:
        """What the rule measures, from its stored arguments."""
        return cls.metric_text.format(**{k: v for k, v in kwargs.items() if isinstance(k, str)})

    @classmethod
    def describe(cls, kwargs: dict[str, Any]) -> str:
        """The rule in words from the stored kwargs alone (used when ``meta`` lacks the expression)."""
        subject = cls.subject(kwargs)
        low, high = kwargs.get("min_value"), kwargs.get("max_value")
        if low is None and high is None:
            return f"{subject} is recorded"
        parts = []
        if low is not None:
            parts.append(f"{'>' if kwargs.get('strict_min') else '≥'} {low:g}")
        if high is not None:
            parts.append(f"{'<' if kwargs.get('strict_max') else '≤'} {high:g}")
        verb = "must not be" if kwargs.get("outside") else "must be"
        return f"{subject} {verb} {' and '.join(parts)}"


def rule_id(meta: dict[str, Any] | None) -> str | None:
    """The id of the rule an expectation was built for (``meta.dqx.rule_id``), if it has one."""
    found = (meta or {}).get("dqx", {}).get("rule_id")
    return found if isinstance(found, str) else None


def _failed(reason: str) -> dict[str, Any]:
    return {"success": False, "result": {"observed_value": None, "details": {"failure": reason}}}
