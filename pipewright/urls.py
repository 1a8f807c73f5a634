"""URL configuration: pages, accounts, the admin and the JSON API."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import path

from editor.api import api
from editor.pages import views

urlpatterns = [
    path("", views.home, name="home"),
    path("pipelines/<int:pipeline_id>/", views.pipeline_editor, name="pipeline-editor"),
    path("workspaces/<slug:slug>/", views.workspace_settings, name="workspace-settings"),
    path("workspaces/<slug:slug>/files/", views.workspace_files, name="workspace-files"),
    path("docs/<slug:name>/", views.docs_page, name="docs-page"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("api/", api.urls),
    path("favicon.ico", views.favicon),
]
handler500 = "editor.database.outage_responses.server_error"
