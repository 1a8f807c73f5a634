"""Existing data into workspaces: each user a personal one, each pipeline its owner's.

The files a pipeline's nodes name (`params.path`, SQLite connection files) are copied from
the data root into the workspace's folder, so runs keep finding them there. Each connection
is copied into every workspace whose pipelines name it, writable (as it was), its password
encrypted; one that no pipeline names goes to the first superuser's workspace.
"""

import shutil
from pathlib import Path

from django.conf import settings
from django.db import migrations
from sqlalchemy.engine import make_url


def _copy_file(relative, slug: str) -> None:
    if not isinstance(relative, str) or not relative:
        return
    root = Path(settings.PIPEWRIGHT_DATA_ROOT).resolve()
    source = (root / relative).resolve()
    target = (root / slug / relative).resolve()
    inside = root in source.parents and (root / slug) in target.parents
    if inside and source.is_file() and not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)


def _sqlite_file(url: str) -> str | None:
    parsed = make_url(url)
    database = parsed.database or ""
    if parsed.get_backend_name() != "sqlite" or database.startswith("file:"):
        return None
    return database if database and not Path(database).is_absolute() else None


def forwards(apps, schema_editor):
    from editor import encryption
    from editor.workspaces.membership import free_slug

    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    Workspace = apps.get_model("editor", "Workspace")
    Membership = apps.get_model("editor", "Membership")
    Pipeline = apps.get_model("editor", "Pipeline")
    Node = apps.get_model("editor", "Node")
    Connection = apps.get_model("editor", "Connection")

    personal = {}
    for user in User.objects.order_by("pk"):
        workspace = Workspace.objects.filter(personal_of=user).first()
        if workspace is None:
            workspace = Workspace.objects.create(
                name=user.username, slug=free_slug(user.username, Workspace), personal_of=user
            )
            Membership.objects.create(workspace=workspace, user=user, role="admin")
        personal[user.pk] = workspace

    for pipeline in Pipeline.objects.filter(workspace=None):
        workspace = personal[pipeline.owner_id]
        Pipeline.objects.filter(pk=pipeline.pk).update(workspace=workspace)
        for params in Node.objects.filter(pipeline=pipeline).values_list("params", flat=True):
            if isinstance(params, dict):
                _copy_file(params.get("path"), workspace.slug)

    superuser = User.objects.filter(is_superuser=True).order_by("pk").first()
    for connection in Connection.objects.filter(workspace=None):
        named_by = Workspace.objects.filter(
            pipelines__nodes__params__connection=connection.name
        ).distinct()
        targets = list(named_by) or ([personal[superuser.pk]] if superuser else [])
        password = encryption.encrypt(connection.password) if connection.password else ""
        for workspace in targets:
            Connection.objects.create(
                workspace=workspace,
                name=connection.name,
                url=connection.url,
                encrypted_password=password,
                read_only=False,
                description=connection.description,
            )
            _copy_file(_sqlite_file(connection.url), workspace.slug)
        connection.delete()


class Migration(migrations.Migration):
    dependencies = [("editor", "0002_workspaces")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
