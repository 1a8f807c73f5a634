"""`GET /api/operators`: the catalog the palette and node forms are built from."""

from ninja import Router

from editor.api.schemas.contract import answers
from editor.api.schemas.operators import OperatorCatalog
from runtime import default_registry
from runtime.document.expectations import checks_json_schema
from runtime.execution.statuses import status_catalog

router = Router()


@router.get("", response=answers({200: OperatorCatalog}), summary="The operator catalog")
def list_operators(request):
    """Every operator with its kind, ports and params JSON Schema, and the run statuses."""
    catalog = default_registry().catalog()
    return {
        "items": catalog, "count": len(catalog), "statuses": status_catalog(),
        "checks": checks_json_schema(),
    }  # fmt: skip
