"""What a job's end says, and where it goes besides the editors: the desktop's notifications and the
webhooks the user set, in `notices.json` of the config folder:

    {"desktop": true,
     "webhooks": [{"url": "https://open.feishu.cn/open-apis/bot/v2/hook/…", "format": "feishu", "secret": "…"}],
     "states": ["SUCCEEDED", "FAILED", "STOPPED", "RETRIED"],
     "locale": "zh-cn"}

A cluster only e-mails a job's changes, every 120 s and only where its admin set that up (the job's
`extras.jobStatusChangeNotification`): these notices come from the daemon, which watches the job itself.
Each webhook format is the JSON body its bot documents: Feishu's custom bot (`msg_type: text`, signed
with `timestamp` + `sign` when it has a secret), DingTalk's custom robot (`msgtype: text`, signed in the
URL's `timestamp` and `sign`), WeCom's group robot (`msgtype: text`), and a generic one with every field.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import sys
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..api import JobEnded
from ..common.atomic import write_atomic
from ..common.folders import config_dir
from ..core.messages import is_chinese, message, render

FORMATS = ("generic", "feishu", "dingtalk", "wecom")
ENDS = ("SUCCEEDED", "FAILED", "STOPPED", "RETRIED")
TIMEOUT = 10.0  # seconds a webhook may take: it is sent beside the watcher, never in its way


@dataclass
class Webhook:
    url: str
    format: str = "generic"
    secret: str = ""  # Feishu's and DingTalk's signing secret, when the bot has one


@dataclass
class NoticeSettings:
    desktop: bool = True
    webhooks: list[Webhook] = field(default_factory=list)
    states: tuple[str, ...] = ENDS
    locale: str | None = None  # the notices' language (desktop and webhooks); None: the terminal's

    @classmethod
    def from_json(cls, data: Any) -> tuple[NoticeSettings, str | None]:
        """The settings, and what was wrong with the file (one line; the rest is read as far as it is right)."""
        if not isinstance(data, dict):
            return cls(), render("notice.settings-not-object", None)
        problems: list[str] = []
        hooks: list[Webhook] = []
        for hook in data.get("webhooks") or []:
            if not isinstance(hook, dict) or not isinstance(hook.get("url"), str) or \
                    not hook["url"].startswith(("http://", "https://")):
                problems.append(render("notice.webhook-url", None))
                continue
            kind = hook.get("format", "generic")
            if kind not in FORMATS:
                problems.append(render("notice.webhook-format", None, format=kind, formats=", ".join(FORMATS)))
                continue
            hooks.append(Webhook(hook["url"], kind, str(hook.get("secret") or "")))
        states = data.get("states")
        chosen = tuple(s for s in states if s in ENDS) if isinstance(states, list) else ENDS
        locale = data.get("locale") if isinstance(data.get("locale"), str) else None
        return cls(data.get("desktop") is not False, hooks, chosen, locale), ("; ".join(problems) or None)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"desktop": self.desktop, "webhooks": [
            {"url": h.url, "format": h.format, **({"secret": h.secret} if h.secret else {})} for h in self.webhooks],
            "states": list(self.states)}
        return data | ({"locale": self.locale} if self.locale else {})


def settings_path() -> Path:
    return config_dir() / "notices.json"


def read_settings(path: Path) -> tuple[NoticeSettings, str | None]:
    """The settings in `path` (the defaults when there is no such file)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return NoticeSettings(), None
    except OSError as exc:
        return NoticeSettings(), f"{path}: {exc.strerror}"
    try:
        data = json.loads(text)
    except ValueError as exc:
        return NoticeSettings(), f"{path}: {exc}"
    settings, problem = NoticeSettings.from_json(data)
    return settings, (f"{path}: {problem}" if problem else None)


def write_settings(path: Path, settings: NoticeSettings) -> None:
    """The settings, written whole and readable by this user only (a webhook's address and secret are
    the bot's keys)."""
    write_atomic(path, json.dumps(settings.to_json(), ensure_ascii=False, indent=1) + "\n", private=True)


# -- what it says --------------------------------------------------------------------------------
def title(ended: JobEnded, locale: str | None) -> str:
    """One line: the job and how it ended."""
    code = {"SUCCEEDED": "notice.succeeded", "FAILED": "notice.failed", "STOPPED": "notice.stopped"}.get(ended.state,
                                                                                                      "notice.retried")
    return render(code, locale, job=ended.job, retries=ended.retries or 1)


def body(ended: JobEnded, locale: str | None) -> str:
    """What follows the title: a failure's cause, else where the job ran."""
    why = ended.why_zh if is_chinese(locale) and ended.why_zh else ended.why
    return why or render("notice.on-cluster", locale, cluster=ended.cluster or "")


def text(ended: JobEnded, locale: str | None) -> str:
    return f"{title(ended, locale)}\n{body(ended, locale)}"


# -- webhooks ------------------------------------------------------------------------------------
def webhook_request(hook: Webhook, ended: JobEnded, locale: str | None, now: float | None = None) -> tuple[str, dict]:
    """The URL and JSON body a webhook of this format is sent."""
    now = time.time() if now is None else now
    said = text(ended, locale)
    if hook.format == "feishu":
        payload: dict[str, Any] = {"msg_type": "text", "content": {"text": said}}
        if hook.secret:  # Feishu: HMAC-SHA256 keyed by "timestamp\nsecret" over nothing, in the body
            stamp = str(int(now))
            sign = hmac.new(f"{stamp}\n{hook.secret}".encode(), b"", hashlib.sha256).digest()
            payload.update(timestamp=stamp, sign=base64.b64encode(sign).decode())
        return hook.url, payload
    if hook.format in ("dingtalk", "wecom"):
        url = hook.url
        if hook.format == "dingtalk" and hook.secret:  # DingTalk: HMAC-SHA256 keyed by the secret over "timestamp\nsecret", in the URL
            stamp = str(int(now * 1000))
            sign = hmac.new(hook.secret.encode(), f"{stamp}\n{hook.secret}".encode(), hashlib.sha256).digest()
            url += ("&" if "?" in url else "?") + urllib.parse.urlencode({"timestamp": stamp,
                                                                         "sign": base64.b64encode(sign).decode()})
        return url, {"msgtype": "text", "text": {"content": said}}
    return hook.url, {"event": JobEnded.EVENT, "job": ended.job, "cluster": ended.cluster, "state": ended.state,
                      "retries": ended.retries, "exitCode": ended.exit_code, "why": ended.why, "title": title(ended, locale),
                      "text": said}


def refused(hook: Webhook, status: int, answer: bytes) -> str | None:
    """Why the bot did not take the message (None: it did). The bots answer 200 with an error code in the body."""
    if status >= 400:
        return f"HTTP {status}"
    if hook.format == "generic":
        return None
    try:
        data = json.loads(answer)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    code = data.get("code", data.get("errcode", data.get("StatusCode", 0)))
    return None if code in (0, None) else f"{code} {data.get('msg') or data.get('errmsg') or ''}".strip()


async def send_webhook(hook: Webhook, ended: JobEnded, locale: str | None, logged: bool = True) -> str | None:
    """POST the notice: why the bot did not take it (never raised; `logged`: also one line in the daemon's
    log), or None."""
    import httpx

    url, payload = webhook_request(hook, ended, locale)
    try:
        async with httpx.AsyncClient(timeout=TIMEOUT) as client:
            response = await client.post(url, json=payload)
        reason = refused(hook, response.status_code, response.content)
    except httpx.HTTPError as exc:
        reason = f"{type(exc).__name__}: {exc}".rstrip(": ")
    if reason is not None and logged:
        log(message("notice.webhook-failed", url=shown(hook.url), job=ended.job, reason=reason).render(None))
    return reason


def shown(url: str) -> str:
    """A webhook's address without its query (which holds the bot's key)."""
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


# -- the desktop ---------------------------------------------------------------------------------
def desktop_session() -> bool:
    """Whether this machine shows notifications now: always on macOS and Windows; elsewhere (the
    freedesktop notification service) only with a display and a D-Bus session bus, so a server
    reached over SSH gets none and logs nothing."""
    if sys.platform in ("darwin", "win32"):
        return True
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return False
    if os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        return True
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    return bool(runtime) and Path(runtime, "bus").exists()


class Desktop:
    """The OS's notifications through desktop-notifier, loaded at the first notice."""

    def __init__(self) -> None:
        self.notifier: Any = None

    async def send(self, ended: JobEnded, locale: str | None, logged: bool = True) -> str | None:
        """Show the notice: why it could not be shown (`logged`: also one line in the daemon's log), or None."""
        try:
            if self.notifier is None:
                from desktop_notifier import DesktopNotifier

                self.notifier = DesktopNotifier(app_name="pai-lsp")
            await self.notifier.send(title=title(ended, locale), message=body(ended, locale))
            return None
        except Exception as exc:  # noqa: BLE001 - a notice that cannot be shown must not stop the daemon
            self.notifier = None  # the next one tries again (the notification service may have started since)
            reason = f"{type(exc).__name__}: {exc}"
            if logged:
                log(message("notice.desktop-failed", reason=reason).render(None))
            return reason


def log(line: str) -> None:
    """One line in the daemon's log (its standard error)."""
    print(f"pai daemon: {line}", file=sys.stderr, flush=True)
