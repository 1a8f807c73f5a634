"""A pipeline's pins: list (viewers), pin from a run, rows or an uploaded file, and unpin
(editors). What a pin does to runs: docs/pins.md."""

from __future__ import annotations

from ninja import Router, Status

from editor.api.bodies import json_object, parse_body
from editor.api.files import refuse_oversized
from editor.api.schemas.contract import ObjectId, answers, request_body
from editor.api.schemas.pins import PinIn, PinList, PinOut
from editor.errors import ActionError
from editor.models import Pin
from editor.pipelines import pins
from editor.workspaces.permissions import Action, pipeline_for, run_for

router = Router()

PIN_BODY = request_body(PinIn.model_json_schema())
PIN_BODY["requestBody"]["content"]["multipart/form-data"] = {
    "schema": {
        "type": "object",
        "required": ["node", "file"],
        "properties": {"node": {"type": "string"}, "file": {"type": "string", "format": "binary"}},
    }
}


def pin_json(pin: Pin) -> dict:
    return {
        "node": pin.node_id,
        "source": pin.source,
        "rows": pin.rows,
        "columns": pin.columns,
        "size_bytes": pin.size_bytes,
        "created_by": pin.created_by.get_username() if pin.created_by else None,
        "created_at": pin.created_at.isoformat(),
    }


@router.get("/{int:pipeline_id}/pins", response=answers({200: PinList}, 404), summary="Pins")
def list_pins(request, pipeline_id: ObjectId):
    pipeline = pipeline_for(request.user, pipeline_id)
    return {"items": [pin_json(pin) for pin in pipeline.pins.select_related("created_by")]}


@router.get("/{int:pipeline_id}/pins/{node}", response=answers({200: PinOut}, 404), summary="A pin")
def get_pin(request, pipeline_id: ObjectId, node: str):
    pipeline = pipeline_for(request.user, pipeline_id)
    pin = pipeline.pins.filter(node_id=node).first()
    if pin is None:
        raise ActionError(404, "no_pin", f"node '{node}' is not pinned", node=node)
    return pin_json(pin)


@router.post(
    "/{int:pipeline_id}/pins",
    response=answers({201: PinOut}, 400, 403, 404, 409, 413),
    openapi_extra=PIN_BODY,
    summary="Pin a node's output",
)
def create_pin(request, pipeline_id: ObjectId):
    """Pin `node` from a run (`{node, run}`), rows (`{node, rows}`) or a CSV or Parquet file
    (multipart `node`, `file`); it replaces the node's pin. 413 `pin_too_large` past
    PIPEWRIGHT_MAX_PIN_MB, nothing stored."""
    if request.content_type == "multipart/form-data":
        refuse_oversized(request)
        pipeline = pipeline_for(request.user, pipeline_id, Action.EDIT)
        upload, node = request.FILES.get("file"), request.POST.get("node", "")
        if upload is None or not node:
            message = "send the form fields 'node' and 'file'"
            raise ActionError(400, "invalid_request", message, field="file")
        return Status(201, pin_json(pins.pin_from_upload(pipeline, request.user, node, upload)))
    body = json_object(request)
    pipeline = pipeline_for(request.user, pipeline_id, Action.EDIT)
    given = parse_body(PinIn, body)
    if (given.run is None) == (given.rows is None):
        raise ActionError(400, "invalid_request", "give either 'run' or 'rows'", field="run")
    if given.run is not None:
        run = run_for(request.user, given.run)
        pin = pins.pin_from_run(pipeline, request.user, given.node, run)
    else:
        pin = pins.pin_from_rows(pipeline, request.user, given.node, given.rows)
    return Status(201, pin_json(pin))


@router.delete(
    "/{int:pipeline_id}/pins/{node}",
    response=answers({204: None}, 403, 404),
    summary="Unpin a node",
)
def delete_pin(request, pipeline_id: ObjectId, node: str):
    pins.unpin(pipeline_for(request.user, pipeline_id, Action.EDIT), node)
    return Status(204, None)
