"""The JSON API under `/api/`: thin views over the domains' actions, with an OpenAPI schema.

Every endpoint requires a signed-in user (session with CSRF for the browser, or a bearer
token for scripts), and so do `/api/openapi.json` and `/api/docs`. Errors answer
`{code, message, node, field}` with a stable `code`; `editor.api.schemas` holds the contract.
"""

from ninja import NinjaAPI

from editor.api.auth import BearerTokenAuth, SessionAuth, signed_in_or_token
from editor.api.backfills import router as backfills_router
from editor.api.dependencies import pipelines as dependencies_router
from editor.api.dependencies import workspaces as pipeline_graph_router
from editor.api.errors import install_error_handlers
from editor.api.expressions import router as expressions_router
from editor.api.files import router as files_router
from editor.api.lineage import router as lineage_router
from editor.api.notifications import router as notifications_router
from editor.api.operators import router as operators_router
from editor.api.pins import router as pins_router
from editor.api.pipelines import router as pipelines_router
from editor.api.plans import router as plans_router
from editor.api.positions import router as positions_router
from editor.api.previews import router as previews_router
from editor.api.revisions import router as revisions_router
from editor.api.run_compare import router as run_compare_router
from editor.api.run_data import router as run_data_router
from editor.api.run_inside import router as run_inside_router
from editor.api.runs import router as runs_router
from editor.api.schedules import previews as schedule_previews_router
from editor.api.schedules import router as schedules_router
from editor.api.scripts import router as scripts_router
from editor.api.subpipelines import router as subpipelines_router
from editor.api.triggers import router as triggers_router
from editor.api.triggers import webhooks as webhooks_router
from editor.api.workspaces import router as workspaces_router

api = NinjaAPI(
    title="Pipewright API",
    version="1",
    description="Design, validate, preview and run data pipelines.",
    auth=[BearerTokenAuth(), SessionAuth()],
    docs_decorator=signed_in_or_token,
    urls_namespace="api",
)
install_error_handlers(api)
api.add_router("/operators", operators_router, tags=["operators"])
api.add_router("/expressions", expressions_router, tags=["expressions"])
api.add_router("/pipelines", pipelines_router, tags=["pipelines"])
api.add_router("/pipelines", plans_router, tags=["pipelines"])
api.add_router("/pipelines", lineage_router, tags=["lineage"])
api.add_router("/pipelines", revisions_router, tags=["history"])
api.add_router("/pipelines", scripts_router, tags=["pipelines"])
api.add_router("/pipelines", positions_router, tags=["incremental inputs"])
api.add_router("/pipelines", schedules_router, tags=["schedules"])
api.add_router("/pipelines", pins_router, tags=["pins"])
api.add_router("/schedules", schedule_previews_router, tags=["schedules"])
api.add_router("/pipelines", backfills_router, tags=["backfills"])
api.add_router("/pipelines", dependencies_router, tags=["dependencies"])
api.add_router("/workspaces", pipeline_graph_router, tags=["dependencies"])
api.add_router("/pipelines", triggers_router, tags=["triggers"])
api.add_router("/hooks", webhooks_router, tags=["triggers"])
api.add_router("/pipelines", notifications_router, tags=["notifications"])
api.add_router("/pipelines", subpipelines_router, tags=["pipelines"])
api.add_router("/runs", run_compare_router, tags=["runs"])  # before /runs/{id}
api.add_router("/runs", runs_router, tags=["runs"])
api.add_router("/runs", run_data_router, tags=["run data"])
api.add_router("/runs", run_inside_router, tags=["runs"])
api.add_router("/workspaces", workspaces_router, tags=["workspaces"])
api.add_router("/workspaces", files_router, tags=["files"])
api.add_router("/previews", previews_router, tags=["pipelines"])
