"""Response headers Django has no setting for: API answers are never stored by a cache.

An API answer carries a user's pipelines, runs and connections; `Cache-Control: no-store`
keeps it out of shared proxies and the browser's disk cache, errors included (the header is
set on whatever the view or Django answered, 4xx and 5xx alike).
"""

from __future__ import annotations

from django.utils.cache import patch_cache_control

API_PREFIX = "/api/"


class NoStoreAPIMiddleware:
    """Mark every response under `/api/` `Cache-Control: no-store`."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if request.path_info.startswith(API_PREFIX):
            patch_cache_control(response, no_store=True)
        return response
