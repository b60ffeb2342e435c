"""The compiled translation catalogues, read with the standard library's `gettext`.

The texts live in gettext catalogues, one per layer (`locale/zh_CN/LC_MESSAGES/<domain>.po`, which
translators and their tools edit; scripts/catalogue compiles them to the `.mo` files beside this
package's code). English is the source language: it needs no file, so a reader who speaks it costs
no start-up time; the catalogues are read once, the first time a Chinese reader is answered.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gettext import NullTranslations

LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
# The Python side's catalogues, one per layer: the job-file core's, the client side's (language
# server, daemon, service, clusters, storage), the CLI's. The editors' (editors.po) become their bundles.
DOMAINS = ("core", "service", "cli")
CHINESE = "zh_CN"


@cache
def chinese() -> NullTranslations:
    """The Python side's Chinese catalogues as one (each domain falls back to the next, the last to
    the English given). A missing file leaves its texts in English rather than failing."""
    import gettext

    chain: NullTranslations = gettext.NullTranslations()
    for domain in reversed(DOMAINS):
        try:
            with (LOCALE_DIR / CHINESE / "LC_MESSAGES" / f"{domain}.mo").open("rb") as file:
                found = gettext.GNUTranslations(file)
        except OSError:
            continue
        found.add_fallback(chain)
        chain = found
    return chain
