"""A least-recently-used cache bounded by the size of what it holds, not only by its count.

The analysis remembers results by the text they came from (a task role, a command). Bounded by
count alone, such a cache grows with the texts: a user typing into one long line makes a new,
slightly longer text at every keystroke, and 40,000 of them, each as long as the line, is
memory quadratic in the line's length. Here every entry also counts its `size` (characters of
text, typically), and the least recently used go once either bound is passed.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class SizedCache(Generic[K, V]):
    """At most `entries` entries whose sizes add up to at most `size` (a single entry larger
    than that is not kept at all). Safe to share between threads (the daemon checks in several)."""

    def __init__(self, entries: int, size: int):
        self.max_entries, self.max_size = entries, size
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self.size = 0  # the sizes of the entries held, added up
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: K) -> V | None:
        with self._lock:
            found = self._items.get(key)
            if found is None:
                return None
            self._items.move_to_end(key)
            return found[0]

    def put(self, key: K, value: V, size: int) -> None:
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self.size -= old[1]
            if size > self.max_size:
                return
            self._items[key] = (value, size)
            self.size += size
            while len(self._items) > self.max_entries or self.size > self.max_size:
                _, (_, dropped) = self._items.popitem(last=False)
                self.size -= dropped

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.size = 0
