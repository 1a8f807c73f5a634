"""URL configuration: the web app's routes arrive with the editor and API issues."""

urlpatterns: list = []
