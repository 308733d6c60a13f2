"""Issue 18: the envelopes between server processes carry a state as it is, after a JSON
header line, instead of escaped inside the header (no second encoding of every state)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("redis")

from exochess.web.live.pubsub import decode, encode


def test_a_message_travels_unchanged_after_the_header() -> None:
    state = json.dumps({"type": "state", "name": 'Zoë "the" player\nsecond line', "ply": 3})
    envelope = {"k": "g1", "m": state, "c": True, "ch": True, "a": {"p": 2}, "o": "abc"}
    data = encode(envelope)
    header, _, rest = data.partition(b"\n")
    assert json.loads(header) == {"k": "g1", "c": True, "ch": True, "a": {"p": 2}, "o": "abc"}
    assert rest.decode() == state  # not escaped a second time
    assert decode(data) == envelope
    assert decode(data.decode()) == envelope


def test_envelopes_without_a_message() -> None:
    for envelope in ({"k": "g1", "ch": True, "o": "w"}, {"k": "g1", "s": [1, 0], "o": "x"}):
        assert decode(encode(envelope)) == envelope
    # the worker's "no state" (m null) arrives as no message at all, which the hub reads the same
    assert decode(encode({"k": "g1", "m": None, "ch": True})) == {"k": "g1", "ch": True}
    # a whole-JSON envelope (the earlier wire form) is still read
    assert decode(b'{"k":"g1","m":"{\\"type\\": \\"state\\"}","o":"y"}') == {
        "k": "g1",
        "m": '{"type": "state"}',
        "o": "y",
    }


def test_what_is_not_an_envelope_is_refused() -> None:
    for bad in (b"", b"not json", b"[1, 2]", b"[1]\nmessage", b'"text"\nmessage', b"{}\n\xff\xfe", None, 42):
        assert decode(bad) is None
