"""ASGI entry point: HTTP through Django, websockets through Channels (daphne serves both)."""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pipewright.settings")
django_application = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402  (needs Django set up)
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from editor.database.outage_responses import WebsocketOutageGuard  # noqa: E402
from editor.live.backpressure import BoundedWebsocketOutput  # noqa: E402
from editor.live.routing import websocket_urlpatterns  # noqa: E402
from editor.runs.launcher import serve_embedded  # noqa: E402
from editor.runs.local import fork_server  # noqa: E402
from editor.runs.stale_outputs import start_removing  # noqa: E402
from editor.runs.watch import start_reaping  # noqa: E402
from editor.schedules.scheduler import serve_embedded as fire_schedules  # noqa: E402
from pipewright.request_bodies import StreamedBody, install  # noqa: E402
from runtime.operators.registry import default_registry  # noqa: E402

install()  # daphne's requests refuse bodies over their address's limit before reading them
application = ProtocolTypeRouter(
    {
        "http": StreamedBody(django_application),
        "websocket": BoundedWebsocketOutput(
            AllowedHostsOriginValidator(
                WebsocketOutageGuard(AuthMiddlewareStack(URLRouter(websocket_urlpatterns)))
            )
        ),
    }
)
start_reaping()
start_removing()
fork_server.start()  # runs then start in milliseconds, the engine loaded beforehand
serve_embedded()
fire_schedules()

# Every operator now rather than on the first request: the first editor opened would otherwise
# wait 0.2 to 0.35 s for the catalog, and their modules get frozen with the rest just below.
default_registry().catalog()

# Everything loaded so far lives as long as the server: keep it out of the garbage collector's
# full passes, which otherwise pause the server for ~70 ms about once a second (live latency).
gc.collect()
gc.freeze()
