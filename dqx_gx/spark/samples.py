"""Failed-row samples: a few rows each failing row-level rule marked, sensitive values hidden (docs/semantics.md,
'Samples and sensitive columns').

All failing rules are sampled in one Spark job with no shuffle: each rule keeps a marked row when
a hash of the row falls under a threshold chosen from the rule's marked-row count (known from the
run), so about ``OVERSAMPLE × limit`` rows per rule reach the driver however many rows failed, and
the ``limit`` with the lowest hash are kept: the same rows whatever order the plan gives them in. A
failing duplicates rule adds the shuffle its window needs, a failing foreign key the join with its
referenced keys.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from datetime import datetime
from functools import reduce
from typing import Any

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from dqx_gx.contract.model import Contract
from dqx_gx.kinds.kind import REDACTED
from dqx_gx.rules.details import DEFAULT_SAMPLES, Detail
from dqx_gx.rules.timestamps import run_moment
from dqx_gx.spark.columns import Columns, spark_column
from dqx_gx.spark.marks import marked, row_rules
from dqx_gx.spark.own_expressions import own_expressions
from dqx_gx.spark.references import References
from dqx_gx.spark.uncast import read_text

OVERSAMPLE = 8
"""Rows kept per rule before the first ``limit`` are chosen: enough that fewer than ``limit`` arrive
only with negligible probability (Poisson(40) ≤ 4 is about 1e-12)."""
_BUCKETS = 1_000_000
_BUCKET = "_dqx_bucket"


FAILED_ROWS = "failed rows"
"""The title of a rule's samples (:class:`~dqx_gx.rules.details.Detail`)."""


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
    secret = {f.name for name in contract.sensitive_columns if (f := columns.find(name)) is not None}
    shown: dict[str, tuple[str, ...]] = {}
    fields: dict[str, Any] = {}
    for check in checks:
        wanted: list[str] = []
        for name in (*contract.sample_key, *check.columns):
            field = columns.find(name)
            if field is not None and name not in wanted:
                wanted.append(name)
                fields[name] = field
        shown[check.rule.id] = tuple(wanted)
    order = list(fields)
    with own_expressions():
        row_hash = F.xxhash64(*[spark_column(fields[n]).cast("string") for n in order]) if order else F.lit(0)
        bucket = F.pmod(row_hash, F.lit(_BUCKETS))
        picks = [
            (check.marked & _kept(bucket, counts[check.rule.id], limit)).alias(f"_dqx_pick_{i}")
            for i, check in enumerate(checks)
        ]
        values = [_value(columns, fields[n], secret).alias(f"_dqx_value_{k}") for k, n in enumerate(order)]
        picked_by_any = reduce(operator.or_, [F.col(f"_dqx_pick_{i}") for i in range(len(checks))])
        query = gate.frame.select(*picks, *values, bucket.alias(_BUCKET)).where(picked_by_any)
    rows = query.collect()
    # whatever order the plan (a join) gives: the same rows shown, here or on Spark Connect
    rows.sort(key=lambda row: (row[_BUCKET], *(_text_order(row[f"_dqx_value_{k}"]) for k in range(len(order)))))
    samples: dict[str, Detail] = {}
    for i, check in enumerate(checks):
        names = shown[check.rule.id]
        picked = [row for row in rows if row[f"_dqx_pick_{i}"]][:limit]
        samples[check.rule.id] = Detail(
            FAILED_ROWS, names, tuple(tuple(row[f"_dqx_value_{order.index(n)}"] for n in names) for row in picked)
        )
    return samples


def _text_order(value: str | None) -> tuple[bool, str]:
    return value is None, value or ""


def _kept(bucket: Column, marked: int, limit: int) -> Column:
    """True for about ``OVERSAMPLE × limit`` of ``marked`` rows (all of them when they are few)."""
    wanted = OVERSAMPLE * limit
    if marked <= wanted:
        return F.lit(True)
    return bucket < F.lit(max(1, _BUCKETS * wanted // marked))


def _value(columns: Columns, field: Any, secret: set[str]) -> Column:
    """The value as it was there: ``***`` when sensitive; the text read from CSV/JSON, not its cast (docs/semantics.md,
    'Data in')."""
    if field.name in secret:
        return F.lit(REDACTED)
    text = read_text(columns, field.name)
    return text.column() if text is not None else spark_column(field).cast("string")
