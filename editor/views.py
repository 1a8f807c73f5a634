"""The editor's pages (the JSON API lives in `editor.api`)."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.templatetags.static import static

from editor.access import pipeline_for, visible_pipelines


@login_required
def home(request):
    """The list of the user's pipelines."""
    pipelines = visible_pipelines(request.user).prefetch_related("runs")
    return render(request, "editor/home.html", {"pipelines": pipelines})


@login_required
def pipeline_editor(request, pipeline_id: int):
    """One pipeline: its graph and runs."""
    pipeline = pipeline_for(request.user, pipeline_id)
    return render(request, "editor/pipeline.html", {"pipeline": pipeline})


def favicon(request):
    """Browsers ask for /favicon.ico before reading the page's icon link."""
    return redirect(static("favicon.svg"), permanent=True)
