"""Referenced datasets (foreign keys): the keys a batch's rows must find in another dataset.

A suite stores only the referenced dataset's *name*; the DataFrame is given to the run
(``run_contract(..., references={name: frame})``, ``dqx-gx validate --reference``) and is visible
to the metric provider while that run's checkpoint runs (:func:`references_given`). The same join
serves the verdict (a count) and the row gate (a mark per row), so both see the same rows.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from functools import reduce
from types import MappingProxyType

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import DataType, DecimalType, StructField

from dqx_gx.contract.model import Contract
from dqx_gx.kinds import Metric
from dqx_gx.kinds.kind import TypeFamily
from dqx_gx.kinds.params import REFERENCE_COLUMNS
from dqx_gx.spark.columns import Columns, family, spark_column, type_text
from dqx_gx.spark_versions import EXISTS_SUBQUERY

References = Mapping[str, DataFrame]
"""Referenced datasets by the name the contract's foreign keys give them (``to: customers.id`` → ``customers``)."""

_GIVEN: ContextVar[References] = ContextVar("dqx_gx_references", default=MappingProxyType({}))


@contextmanager
def references_given(references: References) -> Iterator[None]:
    """Make ``references`` visible to the foreign-key metric for the block (one checkpoint run)."""
    token = _GIVEN.set(MappingProxyType(dict(references)))
    try:
        yield
    finally:
        _GIVEN.reset(token)


def with_the_batch(contract: Contract, batch: DataFrame, references: References | None) -> References:
    """``references`` plus the batch itself under the contract's own name when a foreign key refers to its own
    dataset (``employees.manager_id → employees.id``) and no dataset of that name was given: the batch is the
    reference. A stream is no static dataset to look keys up in; its micro-batches are (``gate_each_batch``)."""
    given = dict(references or {})
    if not batch.isStreaming:
        for name in contract.referenced_datasets - given.keys():
            if name in (contract.dataset, contract.schema_name):
                given[name] = batch
    return given


def given_reference(name: str) -> DataFrame | None:
    """The referenced dataset called ``name`` in the running block, if it was given."""
    return _GIVEN.get().get(name)


def reference_keys(
    metric: Metric, fields: tuple[StructField, ...], reference: DataFrame
) -> tuple[StructField, ...] | str:
    """The referenced dataset's key columns paired with the batch's key ``fields``, or why they cannot be
    compared: a key column it lacks, or types Spark would not compare exactly (or would fail on, under ANSI),
    (:func:`with_found_keys`)."""
    found = Columns.of(reference)
    keys: list[StructField] = []
    for name, field in zip(REFERENCE_COLUMNS.of(metric), fields, strict=True):
        key = found.find(name)
        if key is None:
            return found.missing(name).replace("the batch", repr(metric.reference))
        problem = _incomparable(field.dataType, key.dataType)
        if problem:
            return (
                f"{field.name!r} is {type_text(field.dataType)} but {metric.reference}.{key.name} is "
                f"{type_text(key.dataType)}: {problem}"
            )
        keys.append(key)
    return tuple(keys)


def _incomparable(ours: DataType, theirs: DataType) -> str | None:
    """Why Spark cannot compare two key types exactly, or None: one family (integers with decimals too),
    the same collation for text, the same type for arrays and structs."""
    families = {family(ours), family(theirs)}
    if families == {TypeFamily.INTEGER, TypeFamily.FRACTIONAL}:
        if isinstance(ours, DecimalType) or isinstance(theirs, DecimalType):
            return None
        return "an integer and a floating-point key compare as doubles, not exactly above 2^53; cast one side"
    if len(families) > 1:
        return "keys of different types never match"
    if families == {TypeFamily.TEXT} and _collation(ours) != _collation(theirs):
        return "text of different collations is not compared; use one collation"
    if families & {TypeFamily.ARRAY, TypeFamily.STRUCT, TypeFamily.MAP, TypeFamily.OTHER} and (
        type_text(ours) != type_text(theirs) or TypeFamily.MAP in families
    ):
        return "composite keys compare only when their types are the same (maps never)"
    return None


def _collation(data_type: DataType) -> str:
    return str(getattr(data_type, "collation", None) or "UTF8_BINARY")


def with_found_keys(
    frame: DataFrame,
    fields: tuple[StructField, ...],
    reference: DataFrame,
    keys: tuple[StructField, ...],
    flag: str,
) -> DataFrame:
    """``frame`` plus ``flag``: whether some row of ``reference`` has the row's key (false for a key with a NULL).

    A correlated ``EXISTS``, which Spark plans as an existence join (broadcast when the referenced keys
    are few): no row of ``frame`` is repeated however often a key repeats in ``reference``, and no
    ``distinct`` over it is needed. Works with a streaming ``frame`` and a static ``reference``. Where
    PySpark cannot write that subquery (:data:`EXISTS_SUBQUERY`), the same answer comes from a left join
    with the referenced dataset's distinct keys.
    """
    # Both sides qualified by aliases: the referenced dataset may be the batch itself (a self-reference),
    # and an unqualified outer column would then resolve inside the subquery.
    batch, theirs = f"{flag}_batch", f"{flag}_reference"
    if not EXISTS_SUBQUERY.available:
        return _joined_keys(frame.alias(batch), batch, fields, reference.select(*map(spark_column, keys)), flag)
    same_key = reduce(
        operator.and_,
        [spark_column(key, theirs) == spark_column(f, batch).outer() for f, key in zip(fields, keys, strict=True)],
    )
    return frame.alias(batch).withColumn(flag, reference.alias(theirs).where(same_key).exists())


def _joined_keys(
    frame: DataFrame, batch: str, fields: tuple[StructField, ...], keys: DataFrame, flag: str
) -> DataFrame:
    """:func:`with_found_keys` by a left join with the distinct non-NULL referenced ``keys`` (one row each, so no
    row of ``frame`` repeats); they are renamed so a self-reference joins without ambiguity."""
    names = [f"{flag}_key{i}" for i in range(len(fields))]
    distinct = keys.toDF(*names).dropna().distinct().withColumn(flag, F.lit(True))
    same_key = reduce(
        operator.and_, [spark_column(f, batch) == F.col(name) for f, name in zip(fields, names, strict=True)]
    )
    found = F.coalesce(F.col(flag), F.lit(False)).alias(flag)
    return frame.join(distinct, same_key, "left").select(F.col(f"{batch}.*"), found)
