"""Every run's results published to DataHub through DataHub's own GX action, in dqx-gx's words.

``--notify datahub:GMS_URL`` stores this action in the checkpoint. When the checkpoint runs — ``dqx-gx
validate``, ``run_contract`` or a platform's run of the stored checkpoint — it configures DataHub's GX
action (``datahub_gx_plugin``, the ``dqx-gx[datahub]`` extra) with the dataset and its connection, and
publishes what that action builds with dqx-gx's meaning (:mod:`dqx_gx.actions.datahub_proposals`). DataHub's
plugin is imported only then (its import is slow): a project that stores this action opens and loads anywhere,
and a run without the plugin says so in a :class:`~dqx_gx.errors.NotDelivered` warning, as a GMS that cannot
be reached does; the run and its verdict are unchanged.
"""

from __future__ import annotations

from typing import Any, Literal, Optional, Union

from great_expectations.checkpoint.actions import ActionContext, ValidationAction
from great_expectations.checkpoint.checkpoint import CheckpointResult
from great_expectations.compatibility.pydantic import Field
from great_expectations.datasource.fluent.config_str import ConfigStr

from dqx_gx.contract.model import Contract
from dqx_gx.errors import first_line
from dqx_gx.notify import DATAHUB, DATAHUB_PLUGIN, Target, missing_plugin, not_delivered, shown

TIMEOUT_SECONDS = 10
PLATFORMS = {"local": "file", "azure": "abs"}
"""ODCS server types whose DataHub platform has another name; every other type is its own platform's name."""
DEFAULT_PLATFORM = "spark"


class DataHubResults(ValidationAction):
    """DataHub's GX action, configured for one contract: each run publishes one assertion per rule (its
    name and DQX expression, its severity, dqx-gx's status, SKIPPED with its reason), the rows a row-level
    rule marks and its failed-row samples, and the batch verdict, on the dataset ``platform``/``dataset_name``.

    Its connection fields are DataHub's action's own (``server_url``, ``token``, ``env``, ``platform``,
    ``dataset_name``, ``platform_instance``, ``timeout_sec``, ``retry_max_times``); ``${NAME}`` is read from
    the environment when the checkpoint runs.
    """

    type: Literal["dqx_gx_datahub"] = "dqx_gx_datahub"
    name: str = "dqx_gx_datahub"
    server_url: Union[ConfigStr, str]  # noqa: UP007 - pydantic v1
    token: Optional[Union[ConfigStr, str]] = None  # noqa: UP007, UP045 - pydantic v1
    platform: str
    dataset_name: str
    env: str = "PROD"
    platform_instance: Optional[str] = None  # noqa: UP045 - pydantic v1
    timeout_sec: float = TIMEOUT_SECONDS
    retry_max_times: int = 1
    contract: str
    """The contract's check name (``Contract: orders_contract``)."""
    contract_id: Optional[str] = None  # noqa: UP045 - pydantic v1
    skipped: list[dict[str, str]] = Field(default_factory=list)
    """The rules the suite could not run: each its ``rule``, ``severity``, ``expression``, ``reason`` and
    ``column`` (when it has one), so a platform's run reports them SKIPPED too."""

    @property
    def target(self) -> str:
        """The GMS as the user gave it (``datahub:env:NAME`` for ``${NAME}``)."""
        url = self.server_url
        return shown(DATAHUB, url.get_secret_value() if isinstance(url, ConfigStr) else url)

    def resolved(self, value: str | ConfigStr | None) -> str | None:
        """A stored value with ``${NAME}`` read from the environment of the run."""
        return self._substitute_config_str_if_needed(value, self._resolve_context().context.config_provider)

    def run(self, checkpoint_result: CheckpointResult, action_context: ActionContext | None = None) -> dict[str, Any]:
        """Publish the run's results; a GMS not reached, or no plugin, is named, never a failed run."""
        try:
            from dqx_gx.actions import datahub_proposals  # noqa: PLC0415 - DataHub's plugin, only when publishing
        except ModuleNotFoundError as missing:
            if not (missing.name or "").startswith(("datahub", DATAHUB_PLUGIN)):
                raise
            not_delivered(f"results to {self.target} not delivered: {missing_plugin()}")
            return {"dqx_gx_datahub": self.target, "delivered": False}
        try:
            published = datahub_proposals.publish(self, checkpoint_result, action_context)
        except Exception as exc:  # an unset ${NAME}, a GMS that is down, refuses or does not answer in time
            not_delivered(f"results to {self.target} not delivered: {_reason(exc)}")
            return {"dqx_gx_datahub": self.target, "delivered": False}
        return {"dqx_gx_datahub": self.target, "delivered": True, "assertions": published}


def _reason(exc: Exception) -> str:
    """Why in one line; DataHub's emitter keeps the cause (the HTTP error) in its error's ``info``."""
    text = str(getattr(exc, "message", "") or exc)
    info = getattr(exc, "info", None)
    cause = info.get("message") if isinstance(info, dict) else None
    if cause and str(cause) not in text:
        text = f"{text}: {cause}"
    return f"{type(exc).__name__}: {first_line(text)}"


def datahub_action(target: Target, contract: Contract, skipped: list[dict[str, str]]) -> DataHubResults:
    """The checkpoint action of a ``datahub:`` target for ``contract``. The dataset is on the platform the
    contract's first server names (``local`` is DataHub's ``file``, ``azure`` its ``abs``), else ``spark``, under
    the contract's dataset name; ``platform=`` and ``dataset=`` override them."""
    server = contract.servers[0].type if contract.servers else None
    platform = PLATFORMS.get(server, server) if server else DEFAULT_PLATFORM
    token = target.option("token")
    return DataHubResults(
        name=target.action_name,
        server_url=target.stored,
        token=Target(DATAHUB, token).stored if token else None,
        platform=target.option("platform") or platform,
        dataset_name=target.option("dataset") or contract.dataset,
        env=target.option("env") or "PROD",
        platform_instance=target.option("instance"),
        contract=contract.check_name,
        contract_id=contract.contract_id,
        skipped=skipped,
    )
