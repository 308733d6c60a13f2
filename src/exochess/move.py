"""Immutable move values and their canonical text.

An :class:`Action` is one thing a piece does: relocate, capture, shoot, swap,
self-destruct.  A :class:`Move` is a whole turn: one action in Fugue and Rebel
Fury, one action or a chain of capturing actions in Interweave.

The canonical text (``str(move)``) is the only way a move is written; parsing
accepts a few harmless variations (spaces after commas, lower-case promotion
letters, Rebel Fury power tags) and never changes meaning.

>>> move = Move.from_text("a7xe7(b7), e7xa5(c6)")
>>> str(move)
'a7xe7(b7),e7xa5(c6)'
>>> move
Move.from_text('a7xe7(b7),e7xa5(c6)')
>>> Move.from_text("g6xe8=i").promotion
'I'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from exochess.errors import MoveSyntaxError
from exochess.geometry import parse_square, square_name, victim_order
from exochess.phrase import Phrase

KINDS = "-x~*@"
"""Action separators: ``-`` quiet, ``x`` capture, ``~`` swap, ``*`` mutual destruction, ``@`` shot/rifle."""

_SQ = r"[a-p](?:1[0-6]|[1-9])"
_ACTION_RE = re.compile(
    rf"^(?P<from>{_SQ})"
    rf"(?:(?P<sep>[-x~*])(?P<to>{_SQ})(?:\((?P<victims>{_SQ}(?:,{_SQ})*)\))?"
    rf"|@(?P<target>{_SQ})"
    rf"|@\((?P<rifle>{_SQ}(?:,{_SQ})*)\))"
    rf"(?:=(?P<promo>[A-Za-z]))?"
    rf"(?:/(?P<tag>[A-Za-z]))?$"
)

_ACTION_SPLIT = re.compile(r",(?![^()]*\))")
_SPACES_AFTER_COMMA = re.compile(r",\s+")


@dataclass(frozen=True, slots=True)
class Action:
    """One action of a piece, as written in the canonical move text."""

    from_square: int
    """Square the acting piece starts on."""
    to_square: int
    """Square where the acting piece ends (its own square for an ``@`` rifle; the target for a shot)."""
    kind: str
    """``-`` quiet, ``x`` capture, ``~`` swap, ``*`` mutual destruction, ``@`` shot or rifle."""
    victims: tuple[int, ...] = ()
    """Squares of every enemy piece removed, in canonical order (file, then rank)."""
    promotion: str | None = None
    """Upper-case type letter the piece becomes, or None."""
    tag: str | None = field(default=None, compare=False, hash=False)
    """Informative power tag (Rebel Fury ``/C`` etc.); never part of identity or canonical text."""

    def __repr__(self) -> str:
        return f"Action.from_text({str(self)!r})"

    def __str__(self) -> str:
        start = square_name(self.from_square)
        suffix = f"={self.promotion}" if self.promotion else ""
        if self.kind == "@":
            if self.victims and any(v != self.to_square for v in self.victims):
                listed = ",".join(square_name(v) for v in self.victims)
                return f"{start}@({listed}){suffix}"
            return f"{start}@{square_name(self.to_square)}{suffix}"
        text = start + self.kind + square_name(self.to_square)
        if any(v != self.to_square for v in self.victims):
            text += "(" + ",".join(square_name(v) for v in self.victims) + ")"
        return text + suffix

    @classmethod
    def from_text(cls, text: str) -> Action:
        """Parse one action; raise :class:`MoveSyntaxError` if the text is malformed."""
        m = _ACTION_RE.match(text.strip())
        if m is None:
            raise MoveSyntaxError(Phrase("malformed move text: {text}", text=repr(text.strip())))
        origin = parse_square(m["from"])
        promo = m["promo"].upper() if m["promo"] else None
        tag = m["tag"].upper() if m["tag"] else None
        if m["sep"]:
            target = parse_square(m["to"])
            victims: tuple[int, ...] = ()
            if m["victims"]:
                victims = _victims(m["victims"], text)
            elif m["sep"] in "x*":
                victims = (target,)
            if m["sep"] != "x" and m["victims"]:
                raise MoveSyntaxError(f"only a capture ('x') can list victims: {text.strip()!r}")
            return cls(origin, target, m["sep"], victims, promo, tag)
        if m["target"]:
            target = parse_square(m["target"])
            return cls(origin, target, "@", (target,), promo, tag)
        return cls(origin, origin, "@", _victims(m["rifle"], text), promo, tag)


def _victims(listed: str, text: str) -> tuple[int, ...]:
    squares = [parse_square(s) for s in listed.split(",")]
    if len(set(squares)) != len(squares):
        raise MoveSyntaxError(f"a victim is listed twice: {text.strip()!r}")
    return tuple(sorted(squares, key=victim_order))


@dataclass(frozen=True, slots=True)
class Move:
    """A whole turn: one action, or an Interweave chain of capturing actions.

    Two moves are equal exactly when their canonical texts are equal.
    """

    actions: tuple[Action, ...]
    """The actions of the turn, in the order they are played."""

    def __post_init__(self) -> None:
        if not self.actions:
            raise MoveSyntaxError("a move needs at least one action")

    @property
    def from_square(self) -> int:
        """Square the moving piece starts on."""
        return self.actions[0].from_square

    @property
    def to_square(self) -> int:
        """Square where the moving piece ends the turn."""
        return self.actions[-1].to_square

    @property
    def promotion(self) -> str | None:
        """Type letter of the last promotion in the turn, or None."""
        for action in reversed(self.actions):
            if action.promotion:
                return action.promotion
        return None

    @property
    def victims(self) -> tuple[int, ...]:
        """Every square on which an enemy piece was removed during the turn."""
        return tuple(v for a in self.actions for v in a.victims)

    def is_capture(self) -> bool:
        """Whether the turn removes at least one enemy piece."""
        return any(a.victims for a in self.actions)

    def __str__(self) -> str:
        return ",".join(str(a) for a in self.actions)

    def __repr__(self) -> str:
        return f"Move.from_text({str(self)!r})"

    @classmethod
    def from_text(cls, text: str) -> Move:
        """Parse move text (syntax only, no board needed).

        Raises :class:`MoveSyntaxError` when the text does not follow the grammar.

        >>> str(Move.from_text("E4@(d4, e5,f4)".lower()))
        'e4@(d4,e5,f4)'
        >>> Move.from_text("x1-f4")
        Traceback (most recent call last):
        ...
        exochess.errors.MoveSyntaxError: malformed move text: 'x1-f4'
        """
        if not isinstance(text, str) or not text.strip():
            raise MoveSyntaxError("empty move text")
        parts = _ACTION_SPLIT.split(_SPACES_AFTER_COMMA.sub(",", text.strip()))
        return cls(tuple(Action.from_text(part) for part in parts))
