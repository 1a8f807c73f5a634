"""A relation once rendered: the CTE that holds it, its columns and how its rows are ordered."""

from __future__ import annotations

from dataclasses import dataclass

from runtime.tables.schema import Schema

OrderKey = tuple[str, bool, bool]
"""A hidden column, descending?, nulls last?"""


@dataclass(frozen=True)
class Rendered:
    name: str
    schema: Schema
    order: tuple[OrderKey, ...] = ()
    natural: bool = False

    @property
    def hidden(self) -> list[str]:
        return [column for column, _, _ in self.order]
