"""Alerts through GX's own notification actions, fired by the run's dqx-gx verdict.

Each class is GX's action (Slack, Microsoft Teams, email, the API webhook) with its trigger and message
replaced: the verdict is computed inside the action from the severities of the failed rules
(``meta.dqx.severity``) and the rules the suite could not run, so a platform running the stored
checkpoint alerts exactly when ``dqx-gx validate`` would. One message per run: contract, dataset,
verdict, the failing rules with severity and observed value, the run's data docs page when one was
built. Sending is GX's; a target that cannot be reached is a ContractWarning, never a failed run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Union

import requests
from great_expectations.checkpoint.actions import (
    ActionContext,
    APINotificationAction,
    EmailAction,
    MicrosoftTeamsNotificationAction,
    SlackNotificationAction,
    ValidationAction,
)
from great_expectations.checkpoint.checkpoint import CheckpointResult
from great_expectations.datasource.fluent.config_str import ConfigStr

from dqx_gx.errors import warn_contract
from dqx_gx.notify import NotifyOn, Target, fires
from dqx_gx.rules.severity import DEFAULT_SEVERITY, Outcome, gate_outcome

SMTP = {"host": "DQX_GX_SMTP_HOST", "port": "DQX_GX_SMTP_PORT", "sender": "DQX_GX_SMTP_FROM"}
"""The environment variables an email alert reads its server from when it is sent."""
TIMEOUT_SECONDS = 10


@dataclass(frozen=True)
class Failing:
    rule: str
    severity: str
    observed: Any


@dataclass(frozen=True)
class Alert:
    """What one run's message says."""

    contract: str
    dataset: str
    verdict: Outcome
    failing: tuple[Failing, ...]
    skipped: int
    page: str | None

    @property
    def title(self) -> str:
        return f"dqx-gx: {self.contract} on {self.dataset}: {self.verdict}"

    def lines(self) -> list[str]:
        shown = [f"[{f.severity}] {f.rule}: observed {_observed(f.observed)}" for f in self.failing]
        return [
            *(shown or ["no rule failed"]),
            *([f"{self.skipped} rule(s) skipped"] if self.skipped else []),
            *([f"data docs: {self.page}"] if self.page else []),
        ]

    @property
    def text(self) -> str:
        return "\n".join([self.title, *self.lines()])

    def to_dict(self) -> dict[str, Any]:
        return {
            "contract": self.contract,
            "dataset": self.dataset,
            "verdict": self.verdict,
            "failing": [{"rule": f.rule, "severity": f.severity, "observed": f.observed} for f in self.failing],
            "skipped": self.skipped,
            "data_docs": self.page,
            "text": self.text,
        }


def _observed(value: Any) -> str:
    return "-" if value is None else str(value)


class DqxAlert(ValidationAction):
    """The trigger and message shared by the actions below, each also GX's own action class (no ``type``
    of its own: GX registers only the classes below)."""

    notify_on: NotifyOn = "rejected"
    contract: str
    dataset: str
    skipped: int = 0

    def alert(self, checkpoint_result: CheckpointResult, action_context: ActionContext | None) -> Alert | None:
        """The run's alert, or None when its verdict does not fire under ``notify_on``."""
        pages = self._get_data_docs_pages_from_prior_action(action_context) or {}
        failing: list[Failing] = []
        page = None
        for key, suite_result in checkpoint_result.run_results.items():
            for evr in suite_result.results:
                if evr.success or evr.expectation_config is None:
                    continue
                dqx = (evr.expectation_config.meta or {}).get("dqx", {})
                rule = dqx.get("rule") or evr.expectation_config.kwargs.get("rule") or evr.expectation_config.type
                observed = (evr.result or {}).get("observed_value")
                failing.append(Failing(rule, dqx.get("severity", DEFAULT_SEVERITY), observed))
            page = page or next(iter(pages.get(key, {}).values()), None)
        verdict = gate_outcome((f.severity for f in failing), self.skipped)
        if not fires(verdict, self.notify_on):
            return None
        order = {"P0": 0, "P1": 1, "P2": 2, "P3": 3}
        failing.sort(key=lambda f: order.get(f.severity, 4))
        return Alert(self.contract, self.dataset, verdict, tuple(failing), self.skipped, page)

    def run(self, checkpoint_result: CheckpointResult, action_context: ActionContext | None = None) -> dict[str, Any]:
        """Send the run's alert when its verdict fires; a target not reached is a warning, never a failed run."""
        alert = self.alert(checkpoint_result, action_context)
        if alert is None:
            return {"dqx_gx_alert": None}
        target = self.type.removeprefix("dqx_gx_")
        try:
            sent = self.send(alert)
        except Exception as exc:  # an unset env:NAME, a malformed URL, a refusal
            warn_contract(f"alert to {target} not delivered: {type(exc).__name__}: {exc}")
            sent = None
        else:
            if sent is None:  # GX's own sending logs why and returns nothing
                warn_contract(f"alert to {target} not delivered (unreachable or refused; GX's log has the reason)")
        return {"dqx_gx_alert": target, "delivered": sent is not None}

    def send(self, alert: Alert) -> Any:
        """Send ``alert`` through GX's action; None (or an exception) when it did not arrive."""
        raise NotImplementedError


class SlackAlert(DqxAlert, SlackNotificationAction):  # type: ignore[misc]  # notify_on: dqx-gx's verdicts
    """GX's Slack action: one message per run, when the dqx-gx verdict fires."""

    type: Literal["dqx_gx_slack"] = "dqx_gx_slack"  # type: ignore[assignment]

    def send(self, alert: Alert) -> Any:
        return self._send_slack_notification({"text": alert.text})["slack_notification_result"]


class TeamsAlert(DqxAlert, MicrosoftTeamsNotificationAction):  # type: ignore[misc]  # notify_on: dqx-gx's verdicts
    """GX's Microsoft Teams action: one adaptive card per run, when the dqx-gx verdict fires."""

    type: Literal["dqx_gx_teams"] = "dqx_gx_teams"  # type: ignore[assignment]

    def send(self, alert: Alert) -> Any:
        card = {
            "type": "AdaptiveCard",
            "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
            "version": "1.4",
            "body": [
                {"type": "TextBlock", "text": alert.title, "weight": "Bolder", "wrap": True},
                *({"type": "TextBlock", "text": line, "wrap": True} for line in alert.lines()),
            ],
        }
        payload = {
            "type": "message",
            "attachments": [{"contentType": "application/vnd.microsoft.card.adaptive", "content": card}],
        }
        return self._send_microsoft_teams_notifications(payload)


class WebhookAlert(DqxAlert, APINotificationAction):
    """GX's API action: the alert as JSON (``Alert.to_dict``) POSTed to a URL, when the verdict fires."""

    type: Literal["dqx_gx_webhook"] = "dqx_gx_webhook"  # type: ignore[assignment]
    url: Union[ConfigStr, str]  # type: ignore[assignment]  # noqa: UP007 - pydantic v1

    def send(self, alert: Alert) -> Any:
        url = self._substitute_config_str_if_needed(self.url, self._resolve_context().context.config_provider)
        response = requests.post(str(url), json=alert.to_dict(), timeout=TIMEOUT_SECONDS)
        response.raise_for_status()
        return response.status_code


class EmailAlert(DqxAlert, EmailAction):  # type: ignore[misc]  # notify_on: dqx-gx's verdicts
    """GX's email action: one message per run, when the verdict fires. The SMTP server is read from the
    environment when the message is sent (``DQX_GX_SMTP_HOST``, ``DQX_GX_SMTP_PORT``, ``DQX_GX_SMTP_FROM``)."""

    type: Literal["dqx_gx_email"] = "dqx_gx_email"  # type: ignore[assignment]

    def send(self, alert: Alert) -> Any:
        html = "<br>".join(_escape(line) for line in alert.lines())
        provider = self._resolve_context().context.config_provider
        receivers = self._substitute_config_str_if_needed(self.receiver_emails, provider) or ""
        return self._send_email(alert.title, html, [r.strip() for r in receivers.split(",")])  # type: ignore[no-untyped-call]


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def alert_actions(
    targets: list[Target], notify_on: NotifyOn, *, contract: str, dataset: str, skipped: int
) -> list[Any]:
    """The checkpoint actions of ``targets``: secrets as ``${NAME}``, substituted by GX at run time."""
    common: dict[str, Any] = {"notify_on": notify_on, "contract": contract, "dataset": dataset, "skipped": skipped}
    actions: list[Any] = []
    for index, target in enumerate(targets):
        name = f"dqx_gx_alert_{index}_{target.kind}"
        if target.kind == "slack":
            actions.append(SlackAlert(name=name, slack_webhook=target.stored, **common))
        elif target.kind == "teams":
            actions.append(TeamsAlert(name=name, teams_webhook=target.stored, **common))
        elif target.kind == "webhook":
            actions.append(WebhookAlert(name=name, url=target.stored, **common))
        else:
            actions.append(
                EmailAlert(
                    name=name,
                    receiver_emails=target.stored,
                    smtp_address=f"${{{SMTP['host']}}}",
                    smtp_port=f"${{{SMTP['port']}}}",
                    sender_alias=f"${{{SMTP['sender']}}}",
                    **common,
                )
            )
    return actions
