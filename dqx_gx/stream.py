"""Gate a stream micro-batch by micro-batch (``foreachBatch``), with each batch's verdict.

A streaming DataFrame can be annotated and split row by row (:func:`~dqx_gx.rows.annotate_rows`),
but a rule that compares rows (duplicates, ``unique``, ``primaryKey``) and every batch rule (row
count, mean, freshness, …) need a whole batch. Spark's ``foreachBatch`` hands each micro-batch over
as a static DataFrame: :func:`gate_each_batch` makes the function it calls, which runs the contract
on the micro-batch (its verdict kept per batch id) and writes its valid and quarantined rows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from dqx.common import ResultKey

from dqx_gx.contract.model import Contract
from dqx_gx.rows.gate import gated, split_annotated, warn_without_row_rules
from dqx_gx.rules.details import DEFAULT_SAMPLES
from dqx_gx.rules.severity import Outcome
from dqx_gx.rules.timestamps import run_moment
from dqx_gx.run.artifacts import ephemeral_context
from dqx_gx.run.runner import ContractRun, run_contract

if TYPE_CHECKING:
    from dqx.api import DecoratedCheck
    from dqx.orm.repositories import MetricDB
    from great_expectations.data_context import AbstractDataContext
    from pyspark.sql import DataFrame

    from dqx_gx.spark.references import References

BATCH_ID = "batch_id"
"""The ResultKey tag (and so every AssertionResult's tag) naming the micro-batch."""

Sink = Callable[["DataFrame", int], None]
"""Where one micro-batch's rows go: called with the rows and the batch id (for instance
``lambda rows, batch_id: rows.write.mode("append").parquet(path)``)."""


@dataclass(frozen=True)
class BatchVerdict:
    """The contract's verdict on one micro-batch."""

    batch_id: int
    run: ContractRun

    @property
    def outcome(self) -> Outcome:
        """``passed``, ``passed_with_warnings`` or ``rejected`` (:attr:`ContractRun.outcome`)."""
        return self.run.outcome


@dataclass
class BatchGate:
    """The function ``foreachBatch`` calls: made by :func:`gate_each_batch`."""

    contract: Contract
    valid: Sink | None = None
    quarantine: Sink | None = None
    on_verdict: Callable[[BatchVerdict], None] | None = None
    context: AbstractDataContext | None = None
    tags: Mapping[str, str] = field(default_factory=dict)
    allow_sql: bool = False
    samples: int = DEFAULT_SAMPLES
    references: References = field(default_factory=dict)
    db: MetricDB | None = None

    def __call__(self, batch: DataFrame, batch_id: int) -> None:
        """Run the contract on ``batch``, report the verdict, then write its valid and quarantined rows."""
        moment = run_moment(None)  # the verdict's and the marks'
        if self.valid is None and self.quarantine is None:
            self._verdict(batch, batch_id, moment)
            return
        with gated(self.contract, batch, self.references, now=moment) as gate:  # read and evaluated once
            run = self._verdict(gate.batch, batch_id, moment)
            warn_without_row_rules(self.contract, batch, self.references)
            valid, quarantine = split_annotated(gate.annotated(run))
            if self.valid is not None:
                self.valid(valid, batch_id)
            if self.quarantine is not None:
                self.quarantine(quarantine, batch_id)

    def _verdict(self, batch: DataFrame, batch_id: int, moment: datetime) -> ContractRun:
        if self.context is None:  # one GX context for every batch of the stream, holding no results
            self.context = ephemeral_context(keep_results=False)
        run = run_contract(
            self.contract,
            batch,
            now=moment,
            key=ResultKey(moment.date(), {**self.tags, BATCH_ID: str(batch_id)}),
            context=self.context,
            allow_sql=self.allow_sql,
            samples=self.samples,
            references=self.references,
            db=self.db,
        )
        if self.on_verdict is not None:
            self.on_verdict(BatchVerdict(batch_id, run))
        return run


def gate_each_batch(
    contract: Contract,
    *,
    valid: Sink | None = None,
    quarantine: Sink | None = None,
    on_verdict: Callable[[BatchVerdict], None] | None = None,
    context: AbstractDataContext | None = None,
    tags: Mapping[str, str] | None = None,
    allow_sql: bool = False,
    samples: int = DEFAULT_SAMPLES,
    references: References | None = None,
    checks: Sequence[DecoratedCheck] = (),
    db: MetricDB | None = None,
) -> BatchGate:
    """The function to give ``foreachBatch``: each micro-batch is gated as a batch of its own.

    ``stream.writeStream.foreachBatch(gate_each_batch(contract, valid=..., quarantine=...,
    on_verdict=...)).start()``. For each micro-batch, :func:`~dqx_gx.run_contract` runs every rule
    (duplicates included: a micro-batch is a static DataFrame; a key repeated in two different
    micro-batches is not found) and ``on_verdict`` gets a :class:`BatchVerdict`; the results carry
    the tag ``batch_id`` beside ``tags``. Then ``valid`` gets the rows without errors and
    ``quarantine`` the rows with one (:func:`~dqx_gx.split_rows` placed by that batch's verdict: only
    the rows of its failing P0 rules are quarantined), each with the batch id. The
    verdict comes first, so an ``on_verdict`` that raises (say, on a rejected batch) stops the query
    before anything of that batch is written; Spark then runs the batch again when the query
    restarts. ``context`` is the GX context every batch's run is added to (default: one ephemeral
    context for the stream, which stores no validation results: each batch's is its verdict's
    ``run.checkpoint_result``); ``allow_sql``, ``samples``, ``references`` (static DataFrames the
    foreign keys refer to) and ``db`` are :func:`~dqx_gx.run_contract`'s. ``checks`` (hand-written DQX check
    functions) are read once, here, and run on every micro-batch with the contract's rules: a failing P0
    assertion rejects the batch.
    """
    return BatchGate(
        contract.with_checks(checks) if checks else contract,
        valid=valid,
        quarantine=quarantine,
        on_verdict=on_verdict,
        context=context,
        tags=dict(tags or {}),
        allow_sql=allow_sql,
        samples=samples,
        references=dict(references or {}),
        db=db,
    )
