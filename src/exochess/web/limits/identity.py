"""Whom a limit counts: a client address, or an account name as logins read it.

Each limit is keyed on the *normalised* identity, never on the text as typed: an account name
is folded as :func:`exochess.web.accounts.users.normalize_name` folds it (NFKC, which maps
full-width letters to ASCII, then trimmed) and lower-cased as the accounts' unique key is, so
``"Name "``, its full-width spelling and ``"name"`` are one account to the login limit as they are one
account to the login itself.  An address is its IPv4 address or the /64 of an IPv6 one.
"""

from __future__ import annotations

import ipaddress
import unicodedata


def fold_name(text: str) -> str:
    """An account name as it is stored: NFKC-normalised and trimmed (the accounts' rules then
    decide whether it is a valid name)."""
    return unicodedata.normalize("NFKC", text).strip()


def account_key(text: str) -> str:
    """The key of the account a login names: :func:`fold_name`, lower case (names are unique
    without regard to case), whatever its validity (a malformed name is counted too).

    >>> account_key(" \uff21lice ") == account_key("alice") == "alice"
    True
    """
    return fold_name(text).lower()


def client_key(address: str | None) -> str:
    """Whom a request is counted for: its IPv4 address, or the /64 network of an IPv6 one (a
    single host usually holds a whole /64 and could otherwise rotate through it).

    >>> client_key("2001:db8::1") == client_key("2001:db8::ffff") == "2001:db8::/64"
    True
    """
    if not address:
        return "?"
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:  # a Unix socket path, a test client's name...
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)
