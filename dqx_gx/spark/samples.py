"""Failed-row samples: a few rows each failing row-level rule marked, sensitive values hidden (docs/semantics.md,
'Samples and sensitive columns').

The rows shown are defined once, here: of the rows a rule marks, the ``limit`` with the lowest
:func:`sample_order` (a hash bucket of the row's shown columns, then the shown texts), whatever order the
plan gives the rows in. Two paths give them:

- in the run's own aggregation pass (:func:`in_pass_samples`, Spark 4.2 and later): a rule whose marks read
  the row alone and which failed in the same contract object's previous run adds ``min_by(texts, order, limit)``
  over its marked rows beside its count, and the run's expectations hand the values over
  (:func:`sampled_in_pass`), so a run failing again makes no job for them. Only rules expected to fail: Spark
  generates no code for ``min_by`` with a count, so it would slow the whole pass of every run, passing ones too;
- in one query after the run (:func:`failed_row_samples`) for the others (a rule failing for the first time; a
  duplicates rule's marks need the shuffle of its window, a foreign key's the join with its referenced keys; a
  type rule of values read as text has no kind aggregate to ride) and on earlier Sparks. Each
  rule keeps a marked row when its bucket falls under a threshold chosen from the rule's marked-row count
  (known from the run), so about ``OVERSAMPLE × limit`` rows per rule reach the driver however many rows
  failed, and the ``limit`` lowest are kept.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from functools import reduce
from typing import Any

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import StructField

from dqx_gx.contract.model import Contract
from dqx_gx.kinds.kind import REDACTED
from dqx_gx.per_object import PerObject
from dqx_gx.rules.details import DEFAULT_SAMPLES, Detail
from dqx_gx.rules.timestamps import run_moment
from dqx_gx.spark import text as S
from dqx_gx.spark.columns import Columns
from dqx_gx.spark.marks import marked, row_rules
from dqx_gx.spark.own_expressions import own_expressions
from dqx_gx.spark.references import References
from dqx_gx.spark.text import Sql
from dqx_gx.spark.uncast import read_text
from dqx_gx.spark_versions import BOTTOM_K

OVERSAMPLE = 8
"""Rows kept per rule before the first ``limit`` are chosen: enough that fewer than ``limit`` arrive
only with negligible probability (Poisson(40) ≤ 4 is about 1e-12)."""
_BUCKETS = 1_000_000


FAILED_ROWS = "failed rows"
"""The title of a rule's samples (:class:`~dqx_gx.rules.details.Detail`)."""


@dataclass(frozen=True)
class Shown:
    """What a rule's samples show of a row: the sample key's and the rule's columns present in the batch."""

    names: tuple[str, ...]
    """The contract's names of the columns shown, the sample key first."""
    fields: tuple[StructField, ...]
    texts: tuple[Sql, ...]
    """Each column's value as text: ``***`` when sensitive; the text read from CSV/JSON, not its cast
    (docs/semantics.md, 'Data in')."""

    @property
    def bucket(self) -> Sql:
        """A hash bucket of the row's shown values (sensitive ones too: the bucket shows none of them)."""
        if not self.fields:
            return S.lit(0)
        return S.call("pmod", S.call("xxhash64", *(S.col(f).cast("string") for f in self.fields)), _BUCKETS)


def shown(columns: Columns, key: Sequence[str], rule_columns: Sequence[str], sensitive: frozenset[str]) -> Shown:
    """The columns a rule reading ``rule_columns`` shows of a batch, ``key`` (the contract's sample key) first."""
    secret = {f.name for name in sensitive if (f := columns.find(name)) is not None}
    names: list[str] = []
    fields: list[StructField] = []
    for name in (*key, *rule_columns):
        found = columns.find(name)
        if found is not None and name not in names:
            names.append(name)
            fields.append(found)
    return Shown(tuple(names), tuple(fields), tuple(_text(columns, f, secret) for f in fields))


def sample_order(bucket: Sql, texts: Sequence[Sql]) -> Sql:
    """The order the rows shown are chosen in, lowest first: the bucket, then each text (a NULL last). Spark
    compares the struct field by field, as :func:`_in_order` does in Python."""
    fields: dict[str, Sql] = {"b": bucket}
    for k, text in enumerate(texts):
        fields[f"n{k}"] = text.is_null()
        fields[f"t{k}"] = S.call("coalesce", text, "")
    return S.named_struct(**fields)


def _in_order(bucket: int, values: Sequence[str | None]) -> tuple[Any, ...]:
    return (bucket, *((value is None, value or "") for value in values))


def in_pass_samples(rows: Shown, marks: Sql, limit: int) -> Sql:
    """The aggregate giving up to ``limit`` rows ``marks`` marks (each the texts of ``rows``), in
    :func:`sample_order`: one bounded heap in the run's aggregation pass (:data:`~dqx_gx.spark_versions.BOTTOM_K`)."""
    order = sample_order(rows.bucket, rows.texts)
    heap = S.call("min_by", S.call("array", *rows.texts), order, limit)
    return Sql(f"{heap.text} FILTER (WHERE {marks.text})")  # an unmarked row builds no texts


@dataclass(frozen=True)
class InPass:
    """The samples a run asks of its aggregation pass (:func:`sampled_in_pass`) and those its expectations took."""

    limit: int
    key: tuple[str, ...]
    sensitive: tuple[str, ...]
    rules: frozenset[str]
    """The ids of the rules expected to fail: only theirs are taken in the pass."""
    taken: dict[str, Detail] = field(default_factory=dict)
    """Rule id → the rows shown, for every rule sampled in the pass (passing ones too: the run keeps the
    failing ones' only)."""

    def value_kwargs(self) -> dict[str, Any]:
        """What the pass's sample metric is given besides the rule's own arguments."""
        return {"samples": self.limit, "sample_key": list(self.key), "sensitive": list(self.sensitive)}

    def take(self, rule: str, columns: Columns, rule_columns: Sequence[str], found: list[list[str | None]]) -> None:
        rows = shown(columns, self.key, rule_columns, frozenset(self.sensitive))
        self.taken[rule] = Detail(FAILED_ROWS, rows.names, tuple(tuple(row) for row in found))


_WANTED: ContextVar[InPass | None] = ContextVar("dqx_gx_samples_in_pass", default=None)
_FAILED_BEFORE: PerObject[frozenset[str]] = PerObject()
"""A contract object → the ids of the rules its last run failed."""


def remember_failing(contract: Contract, rules: Iterable[str]) -> None:
    """The rules ``contract``'s run just failed: its next run expects them to fail again (a stream's bad source,
    a service's contract run on each delivery) and takes their samples in its pass."""
    _FAILED_BEFORE.set(contract, frozenset(rules))


@contextmanager
def sampled_in_pass(contract: Contract, limit: int) -> Iterator[dict[str, Detail]]:
    """Inside the block (one checkpoint run), the rules whose marks read the row alone and which failed in the
    contract's previous run (:func:`remember_failing`) take up to ``limit`` samples in the run's aggregation pass;
    the block's value collects them by rule id. Nothing is asked when ``limit`` is 0, no such rule failed before,
    or Spark lacks ``min_by`` with a count (:data:`~dqx_gx.spark_versions.BOTTOM_K`)."""
    expected = _FAILED_BEFORE.get(contract) or frozenset()
    if limit <= 0 or not expected or not BOTTOM_K.available:
        yield {}
        return
    wanted = InPass(limit, contract.sample_key, tuple(sorted(contract.sensitive_columns)), expected)
    token = _WANTED.set(wanted)
    try:
        yield wanted.taken
    finally:
        _WANTED.reset(token)


def wanted_in_pass() -> InPass | None:
    """The samples the run in progress asks of its aggregation pass; None outside :func:`sampled_in_pass`."""
    return _WANTED.get()


def failed_row_samples(
    contract: Contract,
    dataframe: DataFrame,
    counts: Mapping[str, int],
    limit: int = DEFAULT_SAMPLES,
    references: References | None = None,
    *,
    now: datetime | None = None,
) -> dict[str, Detail]:
    """Up to ``limit`` marked rows for each rule id in ``counts`` (rule id → rows it marked, about): the key
    columns and the rule's columns, as text; ``references`` are the datasets the run's foreign keys were
    checked against, ``now`` the run's moment (default: the current time).

    One Spark job for all of them; nothing runs when ``marked`` is empty or ``limit`` is 0.
    """
    columns = Columns.of(dataframe)
    failing = [r for r in row_rules(contract, columns, references) if counts.get(r.rule.id, 0) > 0]
    if not failing or limit <= 0:
        return {}
    gate = marked(dataframe, failing, run_moment(now))
    checks = gate.checks
    rows_of = [shown(columns, contract.sample_key, check.columns, contract.sensitive_columns) for check in checks]
    texts: dict[str, Sql] = {}
    for rows in rows_of:
        texts |= {f.name: text for f, text in zip(rows.fields, rows.texts, strict=True) if f.name not in texts}
    order = list(texts)
    with own_expressions():
        picks = []
        for i, (check, rows) in enumerate(zip(checks, rows_of, strict=True)):
            bucket = rows.bucket.column()
            kept = check.marked & _kept(bucket, counts[check.rule.id], limit)
            picks += [kept.alias(f"_dqx_pick_{i}"), bucket.alias(f"_dqx_bucket_{i}")]
        values = [texts[n].column().alias(f"_dqx_value_{k}") for k, n in enumerate(order)]
        picked_by_any = reduce(operator.or_, [F.col(f"_dqx_pick_{i}") for i in range(len(checks))])
        query = gate.frame.select(*picks, *values).where(picked_by_any)
    found = query.collect()
    samples: dict[str, Detail] = {}
    for i, (check, rows) in enumerate(zip(checks, rows_of, strict=True)):
        at = [f"_dqx_value_{order.index(f.name)}" for f in rows.fields]
        # whatever order the plan (a join) gives: the same rows shown, here or in the pass
        picked = sorted(
            ((row[f"_dqx_bucket_{i}"], tuple(row[a] for a in at)) for row in found if row[f"_dqx_pick_{i}"]),
            key=lambda pick: _in_order(*pick),
        )
        samples[check.rule.id] = Detail(FAILED_ROWS, rows.names, tuple(values for _, values in picked[:limit]))
    return samples


def _kept(bucket: Column, marked: int, limit: int) -> Column:
    """True for about ``OVERSAMPLE × limit`` of ``marked`` rows (all of them when they are few)."""
    wanted = OVERSAMPLE * limit
    if marked <= wanted:
        return F.lit(True)
    return bucket < F.lit(max(1, _BUCKETS * wanted // marked))


def _text(columns: Columns, field: StructField, secret: set[str]) -> Sql:
    if field.name in secret:
        return S.lit(REDACTED)
    text = read_text(columns, field.name)
    return text if text is not None else S.col(field).cast("string")
