"""Alerts through GX's own notification actions, fired by the run's dqx-gx verdict.

Each class is GX's action (Slack, Microsoft Teams, email, the API webhook) with its trigger and message
replaced: the verdict is computed inside the action from the severities of the failed rules
(``meta.dqx.severity``) and the rules the suite could not run, so a platform running the stored
checkpoint alerts exactly when ``dqx-gx validate`` would. One message per run: contract, dataset,
verdict, the failing rules with severity and observed value, the run's data docs page when one was
built. A Slack, Teams or webhook message is posted with a timeout (GX's own senders have none and keep the
reason to their log); an email is sent by GX's action. A target that cannot be reached is named in a
:class:`~dqx_gx.errors.NotDelivered` warning and in the run's report, never a failed run.
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

from dqx_gx.actions.outcomes import rule_outcomes, verdict
from dqx_gx.errors import first_line
from dqx_gx.notify import NotifyOn, Target, fires, not_delivered, shown
from dqx_gx.rules.severity import Outcome

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
        outcomes = []
        page = None
        for key, suite_result in checkpoint_result.run_results.items():
            outcomes += rule_outcomes(suite_result)
            page = page or next(iter(pages.get(key, {}).values()), None)
        outcome = verdict(outcomes, self.skipped)
        if not fires(outcome, self.notify_on):
            return None
        order = {"P0": 0, "P1": 1, "P2": 2, "P3": 3}
        failing = [Failing(o.rule, o.severity, o.observed) for o in outcomes if o.status == "FAILED"]
        failing.sort(key=lambda f: order.get(f.severity, 4))
        return Alert(self.contract, self.dataset, outcome, tuple(failing), self.skipped, page)

    def run(self, checkpoint_result: CheckpointResult, action_context: ActionContext | None = None) -> dict[str, Any]:
        """Send the run's alert when its verdict fires; a target not reached is named, never a failed run."""
        alert = self.alert(checkpoint_result, action_context)
        if alert is None:
            return {"dqx_gx_alert": None}
        target = shown(self.type.removeprefix("dqx_gx_"), _template(self.target))
        try:
            sent = self.send(alert)
        except Exception as exc:  # an unset env:NAME, a malformed URL, a refusal, a timeout
            not_delivered(f"alert to {target} not delivered: {type(exc).__name__}: {first_line(exc)}")
            sent = None
        else:
            if sent is None:  # GX's own email sending logs why and returns nothing
                not_delivered(f"alert to {target} not delivered: refused or unreachable (GX's log says why)")
        return {"dqx_gx_alert": target, "delivered": sent is not None}

    @property
    def target(self) -> str | ConfigStr | None:
        """The stored destination (a URL or addresses, or ``${NAME}``)."""
        raise NotImplementedError

    def send(self, alert: Alert) -> Any:
        """Send ``alert``; None (or an exception) when it did not arrive."""
        raise NotImplementedError

    def _post(self, url: str | ConfigStr | None, payload: dict[str, Any]) -> int:
        """POST ``payload`` as JSON, ``${NAME}`` read from the environment first; an exception when refused
        or not answered within :data:`TIMEOUT_SECONDS`."""
        address = self._substitute_config_str_if_needed(url, self._resolve_context().context.config_provider)
        if not address:
            raise ValueError("no URL to send to")
        response = requests.post(address, json=payload, timeout=TIMEOUT_SECONDS)
        response.raise_for_status()
        return response.status_code


def _template(value: str | ConfigStr | None) -> str:
    """A stored value as written (``${NAME}`` stays ``${NAME}``: a ConfigStr's text is its template)."""
    return value.get_secret_value() if isinstance(value, ConfigStr) else str(value or "")


class SlackAlert(DqxAlert, SlackNotificationAction):  # type: ignore[misc]  # notify_on: dqx-gx's verdicts
    """GX's Slack action: one message per run to its incoming webhook, when the dqx-gx verdict fires."""

    type: Literal["dqx_gx_slack"] = "dqx_gx_slack"  # type: ignore[assignment]

    @property
    def target(self) -> str | ConfigStr | None:
        return self.slack_webhook

    def send(self, alert: Alert) -> Any:
        payload: dict[str, Any] = {"text": alert.text}
        if self.slack_channel:
            provider = self._resolve_context().context.config_provider
            payload["channel"] = self._substitute_config_str_if_needed(self.slack_channel, provider)
        return self._post(self.slack_webhook, payload)


class TeamsAlert(DqxAlert, MicrosoftTeamsNotificationAction):  # type: ignore[misc]  # notify_on: dqx-gx's verdicts
    """GX's Microsoft Teams action: one adaptive card per run, when the dqx-gx verdict fires."""

    type: Literal["dqx_gx_teams"] = "dqx_gx_teams"  # type: ignore[assignment]

    @property
    def target(self) -> str | ConfigStr | None:
        return self.teams_webhook

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
        return self._post(self.teams_webhook, payload)


class WebhookAlert(DqxAlert, APINotificationAction):
    """GX's API action: the alert as JSON (``Alert.to_dict``) POSTed to a URL, when the verdict fires."""

    type: Literal["dqx_gx_webhook"] = "dqx_gx_webhook"  # type: ignore[assignment]
    url: Union[ConfigStr, str]  # type: ignore[assignment]  # noqa: UP007 - pydantic v1

    @property
    def target(self) -> str | ConfigStr | None:
        return self.url

    def send(self, alert: Alert) -> Any:
        return self._post(self.url, alert.to_dict())


class EmailAlert(DqxAlert, EmailAction):  # type: ignore[misc]  # notify_on: dqx-gx's verdicts
    """GX's email action: one message per run, when the verdict fires. The SMTP server is read from the
    environment when the message is sent (``DQX_GX_SMTP_HOST``, ``DQX_GX_SMTP_PORT``, ``DQX_GX_SMTP_FROM``)."""

    type: Literal["dqx_gx_email"] = "dqx_gx_email"  # type: ignore[assignment]

    @property
    def target(self) -> str | ConfigStr | None:
        return self.receiver_emails

    def send(self, alert: Alert) -> Any:
        html = "<br>".join(_escape(line) for line in alert.lines())
        provider = self._resolve_context().context.config_provider
        receivers = self._substitute_config_str_if_needed(self.receiver_emails, provider) or ""
        return self._send_email(alert.title, html, [r.strip() for r in receivers.split(",")])  # type: ignore[no-untyped-call]


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def alert_action(target: Target, notify_on: NotifyOn, *, contract: str, dataset: str, skipped: int) -> DqxAlert:
    """The checkpoint action of an alert ``target``: secrets as ``${NAME}``, substituted by GX at run time."""
    common: dict[str, Any] = {
        "name": target.action_name,
        "notify_on": notify_on,
        "contract": contract,
        "dataset": dataset,
        "skipped": skipped,
    }
    if target.kind == "slack":
        return SlackAlert(slack_webhook=target.stored, **common)
    if target.kind == "teams":
        return TeamsAlert(teams_webhook=target.stored, **common)
    if target.kind == "webhook":
        return WebhookAlert(url=target.stored, **common)
    return EmailAlert(
        receiver_emails=target.stored,
        smtp_address=f"${{{SMTP['host']}}}",
        smtp_port=f"${{{SMTP['port']}}}",
        sender_alias=f"${{{SMTP['sender']}}}",
        **common,
    )
