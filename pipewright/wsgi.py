"""WSGI entry point (HTTP only; Pipewright is normally served over ASGI by daphne)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pipewright.settings")
application = get_wsgi_application()
