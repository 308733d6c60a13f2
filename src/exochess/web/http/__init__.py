"""HTTP and websocket plumbing around the routes: middleware (security headers and checks, body
limit, request ids and logs), rate limits, errors to status codes, the connection protocols,
health and metrics endpoints, languages and templates, and the dependencies the routes share.

May import every package of :mod:`exochess.web` but :mod:`~exochess.web.routes` and ``app``.
"""
