"""How the bench scripts print their results: a Markdown table, pasted into docs/benchmarks.md."""

from __future__ import annotations


def print_table(rows: list[tuple[str, str]]) -> None:
    print("| measure | result |")
    print("|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")
