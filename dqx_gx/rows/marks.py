"""The row-level rules of a contract, resolved against a batch: one Spark predicate each."""

from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import Column

from dqx_gx.contract.model import Contract
from dqx_gx.kinds import Kind, kind_of
from dqx_gx.kinds.kind import Marks, On, Reach, fill
from dqx_gx.rules.rule import MetricRule, Rule
from dqx_gx.spark.columns import Columns, spark_column, type_problem


@dataclass(frozen=True)
class RowCheck:
    """One row-level rule on one batch: the rows it marks and what the mark says."""

    rule: MetricRule
    kind: Kind
    marked: Column
    """True for a marked row, never NULL."""
    message: str

    @property
    def reach(self) -> Reach:
        assert isinstance(self.kind.spark.marks, Marks)
        return self.kind.spark.marks.reach


def is_row_level(rule: Rule) -> bool:
    """Whether ``rule`` marks rows: a metric rule of a row-level kind (SPEC §5); a bound-based kind
    (custom min/max) only when the rule has an operator."""
    if not isinstance(rule, MetricRule):
        return False
    marks = kind_of(rule.metric).spark.marks
    return isinstance(marks, Marks) and (marks.reach is not Reach.BOUNDS or rule.threshold is not None)


def row_checks(contract: Contract, columns: Columns) -> list[RowCheck]:
    """The contract's row-level rules that can mark rows of this batch.

    A rule whose column is not in the batch, or of a type its kind cannot measure, marks
    nothing: the run reports it FAILED with the reason.
    """
    checks = []
    for rule in contract.rules:
        if not is_row_level(rule):
            continue
        assert isinstance(rule, MetricRule)
        kind = kind_of(rule.metric)
        fields = tuple(columns.find(name) for name in rule.metric.columns)
        found = tuple(f for f in fields if f is not None)
        if len(found) != len(fields) or any(type_problem(kind, rule.metric, f) for f in found):
            continue
        marks = kind.spark.marks
        assert isinstance(marks, Marks)
        interval = rule.threshold.interval if rule.threshold is not None else None
        on = On(rule.metric, found, tuple(spark_column(f) for f in found), interval)
        checks.append(RowCheck(rule, kind, marks.predicate(on), fill(marks.reads, rule.metric)))
    return checks
