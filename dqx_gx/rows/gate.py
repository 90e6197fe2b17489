"""Annotate, split and quarantine the rows that break a contract's rules (SPEC §5).

``annotate_rows`` adds two columns, ``_dqx_errors`` (P0 rules) and ``_dqx_warnings`` (P1–P3), each
``array<struct<rule, columns, severity, message>>`` and NULL where the row has none. ``split_rows``
parts the rows: valid (no error; warnings kept) and quarantine (at least one error). Both are lazy:
no Spark action runs until the caller acts.
"""

from __future__ import annotations

import operator
from datetime import date, datetime
from functools import reduce

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from dqx_gx.contract.model import Contract
from dqx_gx.errors import warn_contract
from dqx_gx.kinds.kind import Reach
from dqx_gx.rows.choices import RowGateError
from dqx_gx.spark.columns import Columns
from dqx_gx.spark.marks import RowCheck, RowRule, marked, row_rules
from dqx_gx.spark.references import References, with_the_batch
from dqx_gx.spark.uncast import UNCAST

ERRORS = "_dqx_errors"
WARNINGS = "_dqx_warnings"
ANNOTATION = "array<struct<rule:string,columns:array<string>,severity:string,message:string>>"


def annotate_rows(
    contract: Contract,
    dataframe: DataFrame,
    *,
    now: datetime | date | str | None = None,
    references: References | None = None,
) -> DataFrame:
    """``dataframe`` plus ``_dqx_errors`` and ``_dqx_warnings``: the row-level rules each row breaks.

    P0 rules write errors, P1–P3 warnings; a column is NULL where the row has none. Lazy.
    Works on a streaming DataFrame for every rule that looks at the row alone; a rule that
    compares rows (duplicates, ``unique``, ``primaryKey``) raises :class:`RowGateError` naming
    it there (gate each micro-batch with :func:`dqx_gx.gate_each_batch` instead). On a stream
    nothing here runs a Spark action; a foreign key is a stream-static join with its referenced
    dataset's keys. ``references`` are the datasets the contract's foreign keys refer to, by the name
    the contract uses (a foreign key whose dataset is not given marks nothing). ``now`` is the moment
    time-based rules would be measured from; no row-level kind reads it today.
    """
    del now  # accepted for a stable signature beside run_contract; no row-level kind is time-based
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
    gate = marked(dataframe, rules)
    errors = [c for c in gate.checks if c.rule.severity == "P0"]
    warned = [c for c in gate.checks if c.rule.severity != "P0"]
    annotated = gate.frame.withColumns({ERRORS: _annotation(errors), WARNINGS: _annotation(warned)})
    return annotated.drop(*gate.hidden)


def split_rows(
    contract: Contract,
    dataframe: DataFrame,
    *,
    now: datetime | date | str | None = None,
    references: References | None = None,
) -> tuple[DataFrame, DataFrame]:
    """``(valid, quarantine)``: rows without errors (``_dqx_warnings`` kept) and rows with at least one
    (both annotation columns kept). Every input row is in exactly one. Lazy. ``references`` as in
    :func:`annotate_rows`.

    A contract without row-level rules gives ``(all rows, no rows)`` and a ContractWarning.
    """
    annotated = annotate_rows(contract, dataframe, now=now, references=references)
    warn_without_row_rules(contract, dataframe, references)
    return split_annotated(annotated)


def split_annotated(annotated: DataFrame) -> tuple[DataFrame, DataFrame]:
    """``(valid, quarantine)`` of a DataFrame :func:`annotate_rows` made (for instance a cached one)."""
    valid = annotated.filter(F.col(ERRORS).isNull()).drop(ERRORS, UNCAST)
    return valid, annotated.filter(F.col(ERRORS).isNotNull()).drop(UNCAST)


def warn_without_row_rules(contract: Contract, dataframe: DataFrame, references: References | None = None) -> None:
    """A ContractWarning when no rule of ``contract`` can mark rows of this batch: every row is valid."""
    if not row_rules(contract, Columns.of(dataframe), with_the_batch(contract, dataframe, references)):
        warn_contract(f"{contract.check_name} has no row-level rule for this batch: every row is valid", stacklevel=3)


def _annotation(checks: list[RowCheck]) -> Column:
    if not checks:
        return F.lit(None).cast(ANNOTATION)
    entries = [
        F.when(
            check.marked,
            F.struct(
                F.lit(check.rule.name).alias("rule"),
                F.array(*[F.lit(c) for c in check.columns]).cast("array<string>").alias("columns"),
                F.lit(check.rule.severity).alias("severity"),
                F.lit(check.message).alias("message"),
            ),
        )
        for check in checks
    ]
    # most rows break nothing: test the predicates first, build the array only for rows that broke a rule
    broke_any = reduce(operator.or_, [check.marked for check in checks])
    return F.when(broke_any, F.filter(F.array(*entries), lambda entry: entry.isNotNull())).cast(ANNOTATION)
