"""`pai notices [desktop|add-webhook|remove-webhook|states|test]`: where the daemon tells a job's end
besides the editors — the desktop's notifications and the webhooks (Feishu, DingTalk, WeCom, generic) —
kept in `notices.json` of pai's config folder, which the daemon reads at each end (no restart)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from ..api import JobEnded
from ..core.messages import message
from ..errors import ConfigError, InvalidInput, NotFound
from ..service import notice_channels as notices
from ..service.notice_channels import ENDS, FORMATS, NoticeSettings, Webhook, shown
from .args import _, command, group
from .output import add_output_option, print_json, visible


def add_commands(sub) -> None:
    p = command(sub, "notices", "where a job's end is told: the desktop, webhooks (Feishu, DingTalk, WeCom)", [
        ("pai notices", "the settings, and whether this machine shows desktop notifications"),
        ("pai notices add-webhook 'https://open.feishu.cn/open-apis/bot/v2/hook/…' --format feishu --secret-stdin < secret",
         "a Feishu group bot, signed"),
        ("pai notices states FAILED STOPPED", "tell only failures and stops"),
        ("pai notices test", "send a sample notice to each channel now, and say what each did")])
    nsub = group(p, "notices_command", required=False)
    add_output_option(p)
    desktop = command(nsub, "desktop", "turn the desktop notification on or off", [("pai notices desktop off", "")])
    desktop.add_argument("switch", choices=("on", "off"), metavar="on|off", help="on or off")
    add = command(nsub, "add-webhook", "add a webhook: a JSON POST at each end", [
        ("pai notices add-webhook 'https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=…' --format wecom", "")])
    add.add_argument("url", metavar="URL", help="the bot's address (http:// or https://)")
    add.add_argument("--format", choices=FORMATS, default="generic", help="the body the bot takes (default: generic)")
    add.add_argument("--secret-stdin", action="store_true",
                     help="read the bot's signing secret (Feishu, DingTalk) from standard input")
    remove = command(nsub, "remove-webhook", "remove a webhook", [("pai notices remove-webhook 1", "the first listed")])
    remove.add_argument("which", metavar="N|URL", help="its number in `pai notices`, or its address")
    states = command(nsub, "states", "which ends are told", [("pai notices states FAILED", "failures only")])
    states.add_argument("states", nargs="+", choices=ENDS, metavar="STATE", help=" ".join(ENDS))
    test = command(nsub, "test", "send a sample notice to each channel now", [("pai notices test --state FAILED", "")])
    test.add_argument("--state", choices=ENDS, default="SUCCEEDED", help="the end the sample tells (default: SUCCEEDED)")


def run(args: argparse.Namespace) -> int:
    path = notices.settings_path()
    settings, problem = notices.read_settings(path)
    command = args.notices_command
    if command is None:
        return show(args, path, settings, problem)
    if problem and command != "test":  # rewriting a file that says something else would lose it
        raise ConfigError(message("notice.settings-unreadable", problem=problem))
    if command == "desktop":
        settings.desktop = args.switch == "on"
    elif command == "add-webhook":
        if not args.url.startswith(("http://", "https://")):
            raise InvalidInput(message("notice.webhook-url"))
        secret = _secret() if args.secret_stdin else ""
        settings.webhooks.append(Webhook(args.url, args.format, secret))
    elif command == "remove-webhook":
        settings.webhooks.pop(_webhook_index(settings.webhooks, args.which))
    elif command == "states":
        settings.states = tuple(s for s in ENDS if s in args.states)
    else:
        return send_test(settings, args.state)
    notices.write_settings(path, settings)
    return show(args, path, settings, None)


def _secret() -> str:
    """The bot's signing secret: the first line of standard input (never an argument, which the shell's
    history and `ps` would show)."""
    value = (sys.stdin.readline() if sys.stdin is not None else "").strip()
    if not value:
        raise InvalidInput(message("notice.no-secret-stdin"))
    return value


def _webhook_index(hooks: list[Webhook], which: str) -> int:
    if which.isdigit() and 1 <= int(which) <= len(hooks):
        return int(which) - 1
    for i, hook in enumerate(hooks):
        if which in (hook.url, shown(hook.url)):
            return i
    raise NotFound(message("notice.no-such-webhook", which=which, count=len(hooks)))


def show(args: argparse.Namespace, path: Path, settings: NoticeSettings, problem: str | None) -> int:
    if args.output == "json":
        data = settings.to_json()
        for hook in data["webhooks"]:  # the bot's keys stay in the file
            hook["url"] = shown(hook["url"])
            hook["signed"] = bool(hook.pop("secret", ""))
        print_json(data | {"file": str(path), "desktopSession": notices.desktop_session(), **({"problem": problem} if problem else {})})
        return 0
    print(visible(_("settings: {path}").format(path=path)))
    if problem:
        print(visible(problem), file=sys.stderr)
    here = _("this machine shows them") if notices.desktop_session() else _("no desktop session here: none is shown")
    print(visible(_("desktop: {state} ({here})").format(state=_("on") if settings.desktop else _("off"), here=here)))
    print(visible(_("told: {states}").format(states=", ".join(settings.states))))
    if not settings.webhooks:
        print(_("webhooks: none (pai notices add-webhook URL --format feishu|dingtalk|wecom|generic)"))
    for i, hook in enumerate(settings.webhooks, 1):
        signed = _(", signed") if hook.secret else ""
        print(visible(f"{i}. {hook.format}{signed}  {shown(hook.url)}"))
    return 0


def send_test(settings: NoticeSettings, state: str) -> int:
    """A sample end told through every channel set, each said in one line: what it did."""
    from .output import terminal_locale

    sample = JobEnded(job="pai-notices-test", cluster="local", state=state, why="", why_zh="", retries=0, exit_code=None)
    locale = settings.locale or terminal_locale()

    async def tell() -> list[tuple[str, str | None]]:
        said: list[tuple[str, str | None]] = []
        if settings.desktop:
            said.append((_("desktop"), await notices.Desktop().send(sample, locale, logged=False) if notices.desktop_session()
                         else _("no desktop session here")))
        for hook in settings.webhooks:
            said.append((f"{hook.format} {shown(hook.url)}", await notices.send_webhook(hook, sample, locale, logged=False)))
        return said

    said = asyncio.run(tell())
    if not said:
        print(_("no channel is set: nothing was sent"))
    for channel, reason in said:
        print(visible(f"{channel}: " + (_("sent") if reason is None else _("not sent: {reason}").format(reason=reason))))
    return 1 if any(reason is not None for _channel, reason in said) else 0
