"""The site's routers: :mod:`.pages` (HTML), :mod:`.api` (JSON under ``/api``), :mod:`.ws` (websocket)."""
