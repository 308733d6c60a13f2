"""Every rate limit of the site, in one place: :class:`RateLimits` (``ratelimits.py``) on the
``limits`` library, the catalogue of declared limits (``catalogue.py``: what each counts, its
default, whom it is keyed on), the identities they are keyed on (``identity.py``: a client
address, an account name normalised as logins normalise it), and the message limit of one
websocket connection (``messages.py``, counted through the same object).

Storage is chosen once: in memory for one process (``windows.py``, see
docs/decisions/0014-rate-limit-windows-in-memory.md), in Redis in Redis mode (``limits``' async
Redis storage), so that a limit holds across every server sharing that Redis; a connection's
own limits stay in memory in both modes (see ``ratelimits.py``).

Layer 1 beside ``storage``: it imports only the foundation (``domain``), so that the lobby and
the chat (``social``) and the HTTP middleware and logins (``http``) all use it.
"""

from exochess.web.limits.catalogue import LIMITS, Limit, RateLimitSettingError, parse_rate_limits
from exochess.web.limits.identity import account_key, client_key, fold_name
from exochess.web.limits.messages import CLOSE_FLOOD, MessageLimit
from exochess.web.limits.ratelimits import LimiterUnavailable, RateLimits, Refusal

__all__ = [
    "CLOSE_FLOOD",
    "LIMITS",
    "Limit",
    "LimiterUnavailable",
    "MessageLimit",
    "RateLimitSettingError",
    "RateLimits",
    "Refusal",
    "account_key",
    "client_key",
    "fold_name",
    "parse_rate_limits",
]
