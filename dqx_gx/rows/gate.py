"""Annotate, split and quarantine the rows that break a contract's rules (docs/semantics.md, 'Rows: annotate, split,
quarantine').

``annotate_rows`` adds two columns, ``_dqx_errors`` and ``_dqx_warnings``, each
``array<struct<rule, columns, severity, message>>`` and NULL where the row has none. The batch
verdict decides where a rule's marks go: a P0 rule that **fails** on the batch writes errors; every
other mark (a rule of P1–P3, a rule without an operator, a rule within its tolerance) is a warning.
So an accepted batch quarantines no row. ``split_rows`` parts the rows: valid (no error; warnings
kept) and quarantine (at least one error). Both are lazy: no Spark action runs until the caller acts.
"""

from __future__ import annotations

import contextlib
import operator
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import date, datetime
from functools import reduce

from pyspark import StorageLevel
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from dqx_gx.contract.model import Contract
from dqx_gx.errors import warn_contract
from dqx_gx.kinds import kind_of
from dqx_gx.kinds.kind import Reach
from dqx_gx.rows.choices import RowGateError, Verdict
from dqx_gx.rules.rule import MetricRule, Rule
from dqx_gx.rules.timestamps import run_moment
from dqx_gx.spark.columns import Columns
from dqx_gx.spark.marks import Marked, RowCheck, RowRule, marked, row_rules
from dqx_gx.spark.own_expressions import own_expressions
from dqx_gx.spark.references import References, with_the_batch
from dqx_gx.spark.uncast import UNCAST, as_read

ERRORS = "_dqx_errors"
WARNINGS = "_dqx_warnings"
ANNOTATION = "array<struct<rule:string,columns:array<string>,severity:string,message:string>>"


def annotate_rows(
    contract: Contract,
    dataframe: DataFrame,
    *,
    verdict: Verdict | None = None,
    now: datetime | date | str | None = None,
    references: References | None = None,
) -> DataFrame:
    """``dataframe`` plus ``_dqx_errors`` and ``_dqx_warnings``: the row-level rules each row breaks.

    A P0 rule that fails on the batch writes errors; every other mark is a warning (docs/semantics.md, 'Errors and
    warnings'). Which
    rules fail is ``verdict`` (the :class:`~dqx_gx.run.ContractRun` of this batch) when given. Without
    it the gate decides as the checkpoint would: a rule without an operator never fails; a rule that
    any marked row fails (``mustBe: 0``, the default) needs nothing more; a rule with a tolerance
    (``mustBeLessOrEqualTo: 100``) has its metric computed by one aggregate of the batch in the same
    lazy plan (the input is read twice unless cached). Lazy.

    Works on a streaming DataFrame for every rule that looks at the row alone and needs no batch
    aggregate; a rule that compares rows (duplicates, ``unique``, ``primaryKey``) or has a tolerance
    raises :class:`RowGateError` naming it there (gate each micro-batch with
    :func:`dqx_gx.gate_each_batch` instead). On a stream nothing here runs a Spark action; a foreign key
    is a stream-static join with its referenced dataset's keys. ``references`` are the datasets the
    contract's foreign keys refer to, by the name the contract uses (a foreign key whose dataset is not
    given marks nothing). ``now`` is the run's moment, which rules such as ``is_not_in_future`` mark rows
    by (default: ``verdict``'s, else the current time): the batch's run given the same one counts the rows
    marked here.
    """
    moment = _moment(now, verdict)
    return _annotated(_marked(contract, dataframe, references, moment), verdict, streaming=dataframe.isStreaming)


def split_rows(
    contract: Contract,
    dataframe: DataFrame,
    *,
    verdict: Verdict | None = None,
    now: datetime | date | str | None = None,
    references: References | None = None,
) -> tuple[DataFrame, DataFrame]:
    """``(valid, quarantine)``: rows without errors (``_dqx_warnings`` kept) and rows with at least one
    (both annotation columns kept, each row as it was read). Every input row is in exactly one. Lazy.
    ``verdict``, ``now`` and ``references`` as in :func:`annotate_rows`.

    A contract without row-level rules gives ``(all rows, no rows)`` and a ContractWarning.
    """
    annotated = annotate_rows(contract, dataframe, verdict=verdict, now=now, references=references)
    warn_without_row_rules(contract, dataframe, references)
    return split_annotated(annotated)


@own_expressions()
def split_annotated(annotated: DataFrame) -> tuple[DataFrame, DataFrame]:
    """``(valid, quarantine)`` of a DataFrame :func:`annotate_rows` made (for instance a cached one).

    A batch read from CSV or JSON keeps its cast values in ``valid``; ``quarantine`` holds each row as
    it was read (the original text, docs/semantics.md, 'Data in'), so a corrected file reads again by the same contract.
    """
    valid = annotated.filter(F.col(ERRORS).isNull()).drop(ERRORS, UNCAST)
    return valid, as_read(annotated.filter(F.col(ERRORS).isNotNull()))


@dataclass(frozen=True)
class Gated:
    """A batch marked once: the verdict runs on :attr:`batch`, then :meth:`annotated` places the marks by
    that verdict without building any rule again."""

    batch: DataFrame
    """The input, for the checkpoint run (cached when :func:`gated` was asked to)."""
    marks: Marked
    unrepeated: Marked | None = None
    """The marks for a batch whose duplicates rules repeat no key: no grouping, no join (None: no such rule,
    or the rows are cached with their marks)."""

    def annotated(self, verdict: Verdict) -> DataFrame:
        """The rows with ``_dqx_errors`` and ``_dqx_warnings`` placed by ``verdict``; when the verdict's
        duplicates rules each marked no row (no key repeats), their keys are not grouped again."""
        marks = self.marks
        if self.unrepeated is not None:
            rows_marked = {r.rule.id: r.rows_marked for r in verdict.rule_results}
            keyed = [c.rule.id for c in self.marks.checks if _keyed(c.rule)]
            if all(rows_marked.get(rule) == 0 for rule in keyed):
                marks = self.unrepeated
        return _annotated(marks, verdict, streaming=False)


@contextlib.contextmanager
def gated(
    contract: Contract,
    frame: DataFrame,
    references: References | None = None,
    *,
    now: datetime | date | str | None = None,
    cache: bool = True,
) -> Iterator[Gated]:
    """``frame`` with each row-level rule's mark, for a run that reads the rows several times (the
    verdict, then each output); ``now`` is the moment that run measures from (default: the current
    time). Each duplicates rule's repeated keys are grouped once and cached (they are few), and not at
    all when the verdict observed none. With ``cache`` the rows themselves are
    cached with their marks too, so the input is read and the rules evaluated once; without it each
    reader scans the input again, which costs less than the cache for a file source (measured on parquet
    and CSV: a scan decodes only the columns it needs, a cache encodes every column of every row).
    Released when the block ends."""
    moment = run_moment(now)
    found = _marked(contract, frame, references, moment)
    if cache:
        flags = {f"_dqx_mark_{i}": check.marked for i, check in enumerate(found.checks)}
        cached = found.frame.withColumns(flags).drop(*found.hidden).persist(StorageLevel.MEMORY_AND_DISK)
        with own_expressions():
            checks = tuple(replace(c, marked=F.col(flag)) for c, flag in zip(found.checks, flags, strict=True))
        held, gate = [cached], Gated(cached.drop(*flags), Marked(cached, checks, tuple(flags)))
    else:
        held = [keys.persist(StorageLevel.MEMORY_AND_DISK) for keys in found.repeated_keys]  # computed when read
        unrepeated = _marked(contract, frame, references, moment, keys_repeat=False) if held else None
        gate = Gated(frame, found, unrepeated)
    try:
        yield gate
    finally:
        for kept in held:
            kept.unpersist()


def _keyed(rule: Rule) -> bool:
    """Whether ``rule`` marks the rows sharing a repeated key (duplicates, ``unique``, ``primaryKey``)."""
    return isinstance(rule, MetricRule) and kind_of(rule.metric).marks_by_key


def warn_without_row_rules(contract: Contract, dataframe: DataFrame, references: References | None = None) -> None:
    """A ContractWarning when no rule of ``contract`` can mark rows of this batch: every row is valid."""
    if not row_rules(contract, Columns.of(dataframe), with_the_batch(contract, dataframe, references)):
        warn_contract(f"{contract.check_name} has no row-level rule for this batch: every row is valid", stacklevel=3)


def _moment(now: datetime | date | str | None, verdict: Verdict | None) -> datetime:
    """The moment rows are marked by: the one given, else the verdict's, else the current time."""
    if now is None and verdict is not None:
        return verdict.now
    return run_moment(now)


def _marked(
    contract: Contract,
    dataframe: DataFrame,
    references: References | None,
    now: datetime,
    *,
    keys_repeat: bool = True,
) -> Marked:
    """The row-level rules of ``contract`` on ``dataframe`` (a foreign key to the contract's own dataset
    looks its keys up in the batch), refused when the batch was annotated before or, on a stream, when a
    rule compares rows."""
    clash = sorted({ERRORS, WARNINGS} & set(dataframe.columns))
    if clash:
        raise RowGateError(f"the DataFrame already has {', '.join(clash)}: it was annotated before")
    rules = row_rules(contract, Columns.of(dataframe), with_the_batch(contract, dataframe, references))
    if dataframe.isStreaming:
        needing_rows = [r.rule.name for r in rules if isinstance(r, RowRule) and r.marks.reach is Reach.KEY]
        if needing_rows:
            raise RowGateError(
                f"rule(s) {', '.join(map(repr, needing_rows))} compare rows across the batch, which a streaming "
                "DataFrame cannot do; gate each micro-batch instead: "
                "stream.writeStream.foreachBatch(dqx_gx.gate_each_batch(contract, ...)) (README 'Streams')"
            )
    return marked(dataframe, rules, now, keys_repeat=keys_repeat)


@own_expressions()
def _annotated(gate: Marked, verdict: Verdict | None, *, streaming: bool) -> DataFrame:
    """The marks of ``gate`` placed: errors for the P0 rules that fail on the batch, warnings for the rest."""
    frame = gate.frame
    measured: dict[str, Column] = {}
    errors: list[tuple[RowCheck, Column]] = []
    warned: list[tuple[RowCheck, Column]] = []
    for index, check in enumerate(gate.checks):
        fails = check.fails if verdict is None else check.rule.id in verdict.failed_rules
        if check.rule.severity != "P0" or fails is False:
            warned.append((check, check.marked))
        elif fails is True:
            errors.append((check, check.marked))
        else:  # a tolerance: the rule's metric over the batch decides
            assert isinstance(fails, Column)
            measured[check.rule.name] = fails.alias(f"_dqx_fails_{index}")
            failing = F.col(f"_dqx_fails_{index}")
            errors.append((check, check.marked & failing))
            warned.append((check, check.marked & ~failing))
    if measured:
        if streaming:
            names = ", ".join(map(repr, measured))
            raise RowGateError(
                f"rule(s) {names} fail only past a tolerance over the whole batch, which a streaming DataFrame "
                "cannot measure; gate each micro-batch instead: "
                "stream.writeStream.foreachBatch(dqx_gx.gate_each_batch(contract, ...)) (README 'Streams')"
            )
        frame = frame.crossJoin(F.broadcast(frame.agg(*measured.values())))
    annotated = frame.withColumns({ERRORS: _annotation(errors), WARNINGS: _annotation(warned)})
    return annotated.drop(*gate.hidden, *[f"_dqx_fails_{i}" for i in range(len(gate.checks))])


def _annotation(entries: list[tuple[RowCheck, Column]]) -> Column:
    if not entries:
        return F.lit(None).cast(ANNOTATION)
    structs = [
        F.when(
            when,
            F.struct(
                F.lit(check.rule.name).alias("rule"),
                F.array(*[F.lit(c) for c in check.columns]).cast("array<string>").alias("columns"),
                F.lit(check.rule.severity).alias("severity"),
                F.lit(check.message).alias("message"),
            ),
        )
        for check, when in entries
    ]
    # most rows break nothing: test the predicates first, build the array only for rows that broke a rule
    broke_any = reduce(operator.or_, [when for _, when in entries])
    return F.when(broke_any, F.filter(F.array(*structs), lambda entry: entry.isNotNull())).cast(ANNOTATION)
