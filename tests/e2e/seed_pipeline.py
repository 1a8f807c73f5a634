"""The seed's pipeline (CSV input → filter → aggregate → CSV output) as the editor tests
build it, over the people.csv of conftest.py's `people` fixture.
"""

from __future__ import annotations

PEOPLE = """id,name,age,country,amount
1,Ada,36,FR,120
2,Linus,17,FI,40
3,Grace,85,US,99
4,Alan,41,GB,10
5,Marie,66,FR,30
6,Tim,15,GB,5
"""


def seed(folder) -> dict:
    """The seed's pipeline, as building it in the editor makes it (ids included)."""
    return {
        "format": "pipewright.pipeline",
        "version": 1,
        "name": "Adult spending by country",
        "nodes": [
            {"id": "csv_input_1", "operator": "csv_input",
             "params": {"path": folder.name("people.csv")}, "position": {"x": 0, "y": 0}},
            {"id": "filter_1", "operator": "filter",
             "params": {"condition": "age >= 18"}, "position": {"x": 260, "y": 0}},
            {"id": "aggregate_1", "operator": "aggregate", "params": {
                "group_by": ["country"],
                "aggregations": [
                    {"column": "id", "function": "count", "name": "people"},
                    {"column": "amount", "function": "sum", "name": "amount"},
                ],
            }, "position": {"x": 520, "y": 0}},
            {"id": "csv_output_1", "operator": "csv_output",
             "params": {"path": folder.name("out/spending.csv")}, "position": {"x": 780, "y": 0}},
        ],
        "edges": [
            {"source": "csv_input_1", "target": "filter_1"},
            {"source": "filter_1", "target": "aggregate_1"},
            {"source": "aggregate_1", "target": "csv_output_1"},
        ],
    }  # fmt: skip


def graph_of(document: dict) -> tuple[dict, set]:
    """`({node id: (operator, params)}, {(source, target)})`: what building a pipeline sets."""
    nodes = {item["id"]: (item["operator"], item["params"]) for item in document["nodes"]}
    return nodes, {(edge["source"], edge["target"]) for edge in document["edges"]}
