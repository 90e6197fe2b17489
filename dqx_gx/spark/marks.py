"""The row-level rules of a contract, resolved against a batch: one Spark predicate each."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import reduce

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import StructField

from dqx_gx.contract.model import Contract
from dqx_gx.kinds import Kind, kind_of
from dqx_gx.kinds.kind import Extreme, Marks, Reach, Value, fill
from dqx_gx.rules.metric import Scale
from dqx_gx.rules.rule import MetricRule, Rule, TypeRule
from dqx_gx.spark import text as S
from dqx_gx.spark.columns import Columns, spark_column, type_problem
from dqx_gx.spark.expressions import counted, num_rows, within
from dqx_gx.spark.kinds import On, count_of, marks_of, spark_of
from dqx_gx.spark.own_expressions import own_expressions
from dqx_gx.spark.references import References, reference_keys, with_found_keys
from dqx_gx.spark.text import Sql
from dqx_gx.spark.uncast import UNCAST, uncast_mark


@dataclass(frozen=True)
class RowRule:
    """A row-level rule whose columns are in the batch, with a type its kind can measure."""

    rule: MetricRule
    kind: Kind
    fields: tuple[StructField, ...]
    reference: tuple[DataFrame, tuple[StructField, ...]] | None = None
    """For a foreign key: the referenced dataset and its key columns, paired with ``fields``."""

    @property
    def marks(self) -> Marks:
        assert isinstance(self.kind.marks, Marks)
        return self.kind.marks


@dataclass(frozen=True)
class UncastRule:
    """The type rule of a column read as text (docs/semantics.md, 'Data in'): it marks the rows whose value did not
    cast."""

    rule: TypeRule

    @property
    def columns(self) -> tuple[str, ...]:
        assert self.rule.column is not None
        return (self.rule.column,)


@dataclass(frozen=True)
class RowCheck:
    """One row-level rule on one batch: the rows it marks and what the mark says."""

    rule: MetricRule | TypeRule
    columns: tuple[str, ...]
    """The contract's columns the rule reads."""
    marked: Column
    """True for a marked row, never NULL."""
    message: str
    fails: Column | bool
    """Whether the rule fails on the batch (only then may its marks be errors: docs/semantics.md, 'Errors and
    warnings'). ``False``: it
    has no operator, it is only recorded; ``True``: any marked row fails it (no tolerance), so a
    marked row is the mark of a failing rule; else an aggregate over the batch, true when the rule's
    metric falls outside its bounds, as the checkpoint compares it."""


@dataclass(frozen=True)
class Marked:
    """A batch ready to be marked: the batch (plus hidden helper columns) and the checks reading it."""

    frame: DataFrame
    checks: tuple[RowCheck, ...]
    hidden: tuple[str, ...]
    """Helper columns added to ``frame`` (repeated-key and found-key flags), to drop once the marks are computed."""
    repeated_keys: tuple[DataFrame, ...] = ()
    """The repeated keys of each duplicates rule, joined into ``frame``: small, and a grouping of the whole
    batch each, so a caller that reads ``frame`` more than once caches these rather than the batch."""


def is_row_level(rule: Rule) -> bool:
    """Whether ``rule`` marks rows: a metric rule of a row-level kind (docs/semantics.md, 'Invariant'); a bound-based
    kind
    (custom min/max) only when the rule has an operator."""
    if not isinstance(rule, MetricRule):
        return False
    marks = kind_of(rule.metric).marks
    return isinstance(marks, Marks) and (marks.reach is not Reach.BOUNDS or rule.threshold is not None)


def row_rules(contract: Contract, columns: Columns, references: References | None = None) -> list[RowRule | UncastRule]:
    """The contract's row-level rules that can mark rows of this batch.

    A rule whose column is not in the batch, or of a type its kind cannot measure, marks
    nothing: the run reports it FAILED with the reason. So does a foreign key whose referenced
    dataset is not in ``references`` (the run reports it SKIPPED) or cannot be compared (FAILED).
    On a batch read from an untyped source (it has ``_dqx_uncast``) the type rules of the cast
    columns mark the values that did not cast.
    """
    found: list[RowRule | UncastRule] = []
    untyped = columns.find(UNCAST) is not None
    for rule in contract.rules:
        if untyped and isinstance(rule, TypeRule) and rule.column is not None and rule.data_type is not None:
            found.append(UncastRule(rule))
            continue
        if not is_row_level(rule):
            continue
        assert isinstance(rule, MetricRule)
        kind = kind_of(rule.metric)
        fields = tuple(columns.find(name) for name in rule.metric.columns)
        present = tuple(f for f in fields if f is not None)
        if len(present) < len(fields) or any(type_problem(kind, rule.metric, f, columns) for f in present):
            continue
        if kind.marks.reach is not Reach.REFERENCE:  # type: ignore[union-attr]  # is_row_level: Marks
            found.append(RowRule(rule, kind, present))
            continue
        reference = (references or {}).get(rule.metric.reference or "")
        keys = reference_keys(rule.metric, present, reference) if reference is not None else None
        if reference is not None and isinstance(keys, tuple):
            found.append(RowRule(rule, kind, present, (reference, keys)))
    return found


@own_expressions()
def marked(
    frame: DataFrame,
    rules: Sequence[RowRule | UncastRule],
    now: datetime,
    *,
    keys_repeat: bool = True,
) -> Marked:
    """The predicates of ``rules`` on ``frame``; ``now`` is the run's moment, which a kind's marks may read
    (its run's metric reads the same one).

    Rules that compare rows (duplicates) need the batch's repeated keys: they are found by a
    grouping of the key columns alone and joined back (broadcast when few), so the rows
    themselves are never shuffled; without ``keys_repeat`` (the batch's run counted no repeated key
    for any of them) no grouping or join is built. Foreign keys join in the referenced dataset's keys.
    """
    checks = []
    hidden = []
    repeated_keys = []
    batch = frame
    for index, row_rule in enumerate(rules):
        if isinstance(row_rule, UncastRule):
            data_type = row_rule.rule.data_type
            assert data_type is not None
            message = f"{row_rule.columns[0]} does not cast to {data_type.describe()}"
            mark = uncast_mark(Columns.of(frame), row_rule.columns[0]).column()
            checks.append(RowCheck(row_rule.rule, row_rule.columns, mark, message, fails=True))
            continue
        columns = tuple(S.col(f) for f in row_rule.fields)
        interval = row_rule.rule.threshold.interval if row_rule.rule.threshold is not None else None
        repeated = found = None
        if row_rule.marks.reach is Reach.KEY and not keys_repeat:
            repeated = S.lit(False)
        elif row_rule.marks.reach is Reach.KEY:
            flag = f"_dqx_repeated_{index}"
            keys = _repeated_keys(batch, row_rule.fields, flag)
            frame = _with_flag(frame, keys, row_rule.fields, flag)
            hidden.append(flag)
            repeated_keys.append(keys)
            repeated = counted(S.named(flag))
        if row_rule.reference is not None:
            flag = f"_dqx_found_{index}"
            frame = with_found_keys(frame, row_rule.fields, *row_rule.reference, flag)
            hidden.append(flag)
            found = counted(S.named(flag))
        moment = now if spark_of(row_rule.kind).reads_now else None
        on = On(row_rule.rule.metric, row_rule.fields, columns, interval, repeated, moment, found)
        message = fill(row_rule.marks.reads, on.metric)
        rule = row_rule.rule
        fails = _fails(row_rule, on)
        marks = marks_of(row_rule.kind, on).column()
        fails_column = fails if isinstance(fails, bool) else fails.column()
        checks.append(RowCheck(rule, rule.metric.columns, marks, message, fails_column))
    return Marked(frame, tuple(checks), tuple(hidden), tuple(repeated_keys))


def _fails(row_rule: RowRule, on: On) -> Sql | bool:
    """:attr:`RowCheck.fails` of a metric rule."""
    threshold = row_rule.rule.threshold
    if threshold is None:
        return False
    interval = threshold.interval
    metric = on.metric
    if row_rule.kind.value is Value.ROWS:
        high = interval.max_value
        if (
            metric.scale is Scale.COUNT
            and not interval.outside
            and high is not None
            and (high < 1 or (high == 1 and interval.strict_max))
        ):
            return True  # no count of one row or more passes
        count = count_of(row_rule.kind, on).cast("double")
        if metric.scale is not Scale.COUNT:
            count = count / num_rows() * (100.0 if metric.scale is Scale.PERCENT else 1.0)
        return S.call("coalesce", ~within(count, interval), True)
    # a bound on one statistic (custom min/max): one marked row fails an upper bound of the max or a
    # lower bound of the min; any other bound needs the statistic itself
    highest = row_rule.marks.extreme is Extreme.HIGHEST
    one_sided = interval.min_value is None if highest else interval.max_value is None
    if one_sided and not interval.outside:
        return True
    statistic = count_of(row_rule.kind, on).cast("struct<value:double,nan:boolean>").field("value")
    return S.call("coalesce", ~within(statistic, interval), True)


def _repeated_keys(batch: DataFrame, fields: tuple[StructField, ...], flag: str) -> DataFrame:
    """The keys (columns ``{flag}_key_{k}``) that occur in more than one row of ``batch``, each with ``flag`` true.

    The keys are grouped from ``batch`` (the rows before any flag was joined in), not from the frame the
    previous rule built: grouping each rule's keys from there doubled the plan per duplicates rule
    (measured: a 20-rule contract's plan string ran the driver out of memory).
    """
    return (
        batch.groupBy(*[spark_column(f).alias(f"{flag}_key_{k}") for k, f in enumerate(fields)])
        .agg(F.count(F.lit(1)).alias(f"{flag}_rows"))
        .where(F.col(f"{flag}_rows") > 1)
        .select(*[f"{flag}_key_{k}" for k in range(len(fields))], F.lit(True).alias(flag))
    )


def _with_flag(frame: DataFrame, repeated: DataFrame, fields: tuple[StructField, ...], flag: str) -> DataFrame:
    """``frame`` plus ``flag``: true where the row's key is one of ``repeated`` (made by :func:`_repeated_keys`),
    NULL elsewhere. Keys are compared NULL-safely, as ``COUNT(DISTINCT struct(...))`` compares tuples."""
    aliases = [f"{flag}_key_{k}" for k in range(len(fields))]
    same_key = reduce(
        operator.and_, [spark_column(f).eqNullSafe(F.col(alias)) for f, alias in zip(fields, aliases, strict=True)]
    )
    return frame.join(F.broadcast(repeated), same_key, "left").drop(*aliases)
