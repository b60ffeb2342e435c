"""How the bench scripts print their results: a Markdown table, pasted into docs/benchmarks.md."""

from __future__ import annotations


def print_table(rows: list[tuple[str, str]]) -> None:
    print("| measure | result |")
    print("|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")


def print_markdown(header: list[str], rows: list[list[str]]) -> None:
    """A table with its own header row."""
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")
