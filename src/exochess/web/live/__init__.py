"""Live delivery: the websocket hub of one server (``hub``), and in Redis mode what the servers
share: pub/sub of stored changes (``pubsub``), presence counts (``presence``) and the move note
(``movenote``) that carries one stored move to the other servers.

Imports the foundation (``domain``, ``metrics``) only.
"""
