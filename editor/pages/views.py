"""The editor's pages (the JSON API lives in `editor.api`).

Each page is a template whose script reads the API; the view only checks that the user may
see what the page is about (404 otherwise) and hands the page the user's role there, so that
it does not offer what the server would refuse.
"""

from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.templatetags.static import static

from editor.pages.docs import PAGES, rendered
from editor.workspaces.permissions import pipeline_for, role_in, workspace_for


@login_required
def home(request):
    """The pipelines of the user's workspaces (the page's script reads them from the API)."""
    return render(request, "editor/home.html")


@login_required
def pipeline_editor(request, pipeline_id: int):
    """The editor of one pipeline (404 for anyone who may not see it), read-only for viewers."""
    pipeline = pipeline_for(request.user, pipeline_id)
    workspace = pipeline.workspace
    context = {
        "pipeline": pipeline,
        "workspace": workspace,
        "role": role_in(request.user, workspace),
    }
    return render(request, "editor/pipeline.html", context)


@login_required
def workspace_files(request, slug: str):
    """A workspace's Files page (404 for non-members)."""
    return _workspace_page(request, slug, "files", "Files")


@login_required
def workspace_settings(request, slug: str):
    """A workspace's members and connections (404 for non-members)."""
    return _workspace_page(request, slug, "workspace", "Members and connections")


def _workspace_page(request, slug: str, page: str, title: str):
    workspace = workspace_for(request.user, slug)
    context = {
        "workspace": workspace,
        "role": role_in(request.user, workspace),
        "page": page,
        "title": title,
    }
    return render(request, "editor/workspace.html", context)


@login_required
def docs_page(request, name: str):
    """A page of the user documentation (docs/<name>.md); the editor links to the expressions'."""
    body = rendered(name)
    return render(request, "editor/docs.html", {"title": PAGES[name], "body": body})


def favicon(request):
    """Browsers ask for /favicon.ico before reading the page's icon link."""
    return redirect(static("favicon.svg"), permanent=True)
