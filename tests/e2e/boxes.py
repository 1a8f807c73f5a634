"""Bounding boxes as Playwright gives them: whether one lies within or overlaps another."""

from __future__ import annotations


def inside(box: dict, outer: dict) -> bool:
    """Whether a bounding box lies wholly within another."""
    return (
        outer["x"] <= box["x"] <= box["x"] + box["width"] <= outer["x"] + outer["width"]
        and outer["y"] <= box["y"] <= box["y"] + box["height"] <= outer["y"] + outer["height"]
    )


def overlaps(box: dict, other: dict) -> bool:
    """Whether two bounding boxes share any area."""
    return (
        box["x"] < other["x"] + other["width"]
        and other["x"] < box["x"] + box["width"]
        and box["y"] < other["y"] + other["height"]
        and other["y"] < box["y"] + box["height"]
    )
