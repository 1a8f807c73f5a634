"""The browser editor refuses an invalid connection with its reason, and reports a mistyped
condition at its field and on its node.
"""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.e2e.editor_page import connect, edges, node, open_editor, save_state, select
from tests.e2e.seed_pipeline import seed

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]


@pytest.mark.parametrize(
    ("source", "target", "reason"),
    [
        (
            "filter_1",
            "csv_output_1",
            'input "in" of csv_output_1 takes one connection and already has one '
            "(from aggregate_1); delete that edge first",
        ),
        (
            "aggregate_1",
            "filter_1",
            "connecting aggregate_1 to filter_1 would make a cycle "
            "(filter_1 → aggregate_1 → filter_1)",
        ),
    ],
    ids=["second-edge-into-one-input", "cycle"],
)
async def test_an_invalid_connection_is_refused_with_its_reason(
    signed_in, api, people, screenshot, source, target, reason
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)

    await connect(page, source, target)

    await expect(page.get_by_role("alert")).to_contain_text(f"Not connected: {reason}.")
    await screenshot(page, "refused")
    await expect(edges(page)).to_have_count(3)
    await expect(save_state(page)).to_have_text("Saved")


async def test_a_mistyped_condition_is_reported_at_its_field_and_on_its_node(
    signed_in, api, people, screenshot
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    await select(page, "filter_1")
    side = page.get_by_role("complementary", name="Node")
    condition = side.get_by_role("textbox", name="Condition", exact=True)

    await condition.fill("agee >= 18")  # checked once autosaved, without pressing anything

    problem = side.locator(".pw-field-problems")
    await expect(problem).to_contain_text("unknown column 'agee'", timeout=10_000)
    await expect(problem).to_contain_text("did you mean 'age'?")
    await expect(node(page, "filter_1").locator("[role=note]")).to_contain_text("agee")
    await screenshot(page, "problem")
    await condition.fill("age >= 18")
    await expect(problem).to_have_count(0, timeout=10_000)
    await expect(node(page, "filter_1").locator("[role=note]")).to_have_count(0)
