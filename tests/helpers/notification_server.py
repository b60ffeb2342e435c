"""A desktop's notification service for tests: `org.freedesktop.Notifications` on the session bus
that DBUS_SESSION_BUS_ADDRESS names (a `dbus-daemon --session` the test started), as a real desktop
serves it (the freedesktop Desktop Notifications spec, 1.2), recording each notification it is asked
to show as one JSON line in the file given as its argument. It prints "ready" once it owns the name.

    python tests/helpers/notification_server.py shown.jsonl
"""
# D-Bus names its methods in CamelCase and types them by signature strings (dbus-fast reads the annotations):
# ruff: noqa: F722, F821, N802, A002

import asyncio
import json
import sys
from pathlib import Path

from dbus_fast.aio import MessageBus
from dbus_fast.service import ServiceInterface, method, signal


class Notifications(ServiceInterface):
    def __init__(self, record: Path):
        super().__init__("org.freedesktop.Notifications")
        self.record = record
        self.last = 0

    @method()
    def GetCapabilities(self) -> "as":
        return ["body", "actions"]

    @method()
    def GetServerInformation(self) -> "ssss":
        return ["pai-lsp test notifications", "pai-lsp", "1", "1.2"]

    @method()
    def Notify(self, app_name: "s", replaces_id: "u", app_icon: "s", summary: "s", body: "s",
               actions: "as", hints: "a{sv}", expire_timeout: "i") -> "u":
        self.last += 1
        with self.record.open("a", encoding="utf-8") as out:
            out.write(json.dumps({"app": app_name, "summary": summary, "body": body, "actions": actions}) + "\n")
        return self.last

    @method()
    def CloseNotification(self, id: "u"):
        self.NotificationClosed(id, 3)

    @signal()
    def NotificationClosed(self, id: "u", reason: "u") -> "uu":
        return [id, reason]

    @signal()
    def ActionInvoked(self, id: "u", action_key: "s") -> "us":
        return [id, action_key]


async def main(record: Path) -> None:
    bus = await MessageBus().connect()
    bus.export("/org/freedesktop/Notifications", Notifications(record))
    await bus.request_name("org.freedesktop.Notifications")
    print("ready", flush=True)
    await bus.wait_for_disconnect()


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
