"""The editor's pages (the JSON API lives in `editor.api`)."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.templatetags.static import static

from editor.permissions import pipeline_for


@login_required
def home(request):
    """The list of the user's pipelines (the page's script reads it from the API)."""
    return render(request, "editor/home.html")


@login_required
def pipeline_editor(request, pipeline_id: int):
    """The editor of one pipeline (404 for anyone who may not see it)."""
    pipeline = pipeline_for(request.user, pipeline_id)
    return render(request, "editor/pipeline.html", {"pipeline": pipeline})


def favicon(request):
    """Browsers ask for /favicon.ico before reading the page's icon link."""
    return redirect(static("favicon.svg"), permanent=True)
