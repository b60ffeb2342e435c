"""CPU work of requests (reading, checking and rendering a job) runs here: off the event loop, and one
piece at a time. One thread, not many: Python threads share one interpreter lock, so every extra
thread busy with a large job is one more the event loop waits behind before it can answer anyone;
with one, a health check waits at most a switch interval or two whatever the flood of submits."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")

_WORKER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pai-local-cluster-cpu")


async def run(fn: Callable[..., T], *args: object) -> T:
    """`fn(*args)` in the CPU worker; its exception, if any, raised here."""
    return await asyncio.get_running_loop().run_in_executor(_WORKER, fn, *args)
