"""What the runs of a contract in one process share: the GX context dqx-gx makes for itself, and each contract's
translated suite and checkpoint installed in a context only dqx-gx holds.

None of them depends on the batch: the DataFrame is given to the checkpoint's run, and the run's moment, history
and references are context variables of the run. So a contract run again (a loop, a stream's micro-batches)
is not translated and installed again, and GX's context, datasource and asset are not built again (adding a
datasource or a batch definition saves the context's project configuration as YAML, three times a run). In a
context anyone else may read (a file project, one the caller made) everything is written each run, as before.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING

from dqx_gx.contract.model import Contract
from dqx_gx.expectations.suite import SuiteBuild
from dqx_gx.gx_private import is_thrown_away
from dqx_gx.per_object import PerObject
from dqx_gx.rules.rule import SkippedRule
from dqx_gx.run.artifacts import Artifacts, ephemeral_context

if TYPE_CHECKING:
    from great_expectations.data_context import AbstractDataContext
    from pyspark.sql import SparkSession

Installed = tuple[SuiteBuild, Artifacts]

_THREAD = threading.local()
"""Per thread: its own contexts (GX's context and checkpoint objects are not made for two runs at once)."""

_INSTALLED: weakref.WeakKeyDictionary[AbstractDataContext, PerObject[Installed]] = weakref.WeakKeyDictionary()
"""Per context only dqx-gx holds: each contract object's installed suite and checkpoint, by the run's options."""


def shared_context(session: SparkSession) -> AbstractDataContext:
    """This thread's context for runs on ``session`` that are given none and build no data docs: one only
    dqx-gx holds (:func:`~dqx_gx.run.artifacts.ephemeral_context` without results), kept while the session is.
    A new session gets a new context, so GX's execution engine never works on a stopped session."""
    contexts: weakref.WeakKeyDictionary[SparkSession, AbstractDataContext] | None = getattr(_THREAD, "contexts", None)
    if contexts is None:
        contexts = _THREAD.contexts = weakref.WeakKeyDictionary()
    context = contexts.get(session)
    if context is None:
        context = contexts[session] = ephemeral_context(keep_results=False)
    return context


def installed(
    context: AbstractDataContext,
    contract: Contract,
    options: Hashable,
    install: Callable[[AbstractDataContext], Installed],
) -> Installed:
    """``install(context)``'s suite build and artefacts for ``contract`` run with ``options`` (whatever else they depend
    on) in ``context``: kept from the last run of the same contract object with the same options where only
    dqx-gx holds ``context`` (:func:`~dqx_gx.gx_private.is_thrown_away`), else made anew. A translation that
    warned (a rule skipped for the run's options) is made anew each run, so each run warns as before."""
    if not is_thrown_away(context):
        return install(context)
    kept = _INSTALLED.setdefault(context, PerObject())
    found = kept.get(contract, options)
    if found is not None:
        return found
    made = install(context)
    if set(made[0].skipped) <= {rule.id for rule in contract.rules if isinstance(rule, SkippedRule)}:
        kept.set(contract, made, options)
    return made
