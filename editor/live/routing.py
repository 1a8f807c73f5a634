"""Websocket routes."""

from django.urls import path

from editor.live.consumers import PipelineConsumer

websocket_urlpatterns = [
    path("ws/pipelines/<int:pipeline_id>/", PipelineConsumer.as_asgi()),
]
