"""The admin as a browser uses it: a change page submitted as rendered, an action on
the pipeline list, and the messages a response left.
"""

from __future__ import annotations

from django.contrib.messages import get_messages

from editor.models import Pipeline


def messages_of(response) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def change_form_data(response) -> dict:
    """The POST body that submits an admin change page as it was rendered."""
    forms = [response.context["adminform"].form]
    for inline in response.context["inline_admin_formsets"]:
        forms += [inline.formset.management_form, *inline.formset.forms]
    data = {}
    for form in forms:
        for name in form.fields:
            value = form[name].value()
            if value is not None and value is not False:
                data[form.add_prefix(name)] = value
    return data


def act(client, action: str, *pipelines: Pipeline, follow: bool = True):
    selected = [pipeline.pk for pipeline in pipelines]
    body = {"action": action, "_selected_action": selected}
    return client.post("/admin/editor/pipeline/", body, follow=follow)
