"""One page of a tournament's view, as one socket shows it.

A whole view of a 200-player arena is about 60 kB (every standings line and every game on); sent
to 500 watchers after each result, writing it was the largest share of a server's CPU (issue 46's
profile: 24%, 14% in the transport's writes alone).  lichess shows ten lines of standings a page
and a socket follows the page its reader looks at; so does ours:

- a socket shows :data:`PAGE_SIZE` lines of the standings: the page it asked for, or, until it
  asks, the page of its signed-in player (page 1 for anyone else), as lichess opens on "my page";
- its games on are those of the players of that page, and its player's own game wherever they
  stand (their page goes to their new game, ``pages/tournament.js``);
- its player's own line comes as ``mine`` when it is not on the page shown (join and withdraw
  depend on it).

The HTTP API (``GET /api/tournaments/{id}``) still gives the whole view: programs read it once.
A socket's view only changes when its page, its games or its player's line do, so a result far
down the table is sent only to the sockets of its page (:meth:`~.tournaments.Tournaments._changed`).

>>> view = {"standings": [{"name": f"p{i}", "rank": i + 1} for i in range(25)],
...         "playing": [{"id": "g1", "white": "p0", "black": "p24"}, {"id": "g2", "white": "p5",
...         "black": "p6"}, {"id": "g3", "white": "p12", "black": "p13"}]}
>>> pages = Pages(view)
>>> one = pages.cut(None, "p24")
>>> one["page"], one["pages"], [line["name"] for line in one["standings"]]
(3, 3, ['p20', 'p21', 'p22', 'p23', 'p24'])
>>> [g["id"] for g in one["playing"]], one["mine"]
(['g1'], None)
>>> two = pages.cut(2, "p24")
>>> [g["id"] for g in two["playing"]], two["mine"]["rank"]
(['g1', 'g3'], 25)
>>> pages.key(None, "p24"), pages.key(2, "p24"), pages.key(2, None), pages.key(9, "nobody")
((3, None), (2, 'p24'), (2, None), (3, None))
"""

from __future__ import annotations

from typing import Any

PAGE_SIZE = 10
"""Standings lines a page (lichess's arena shows ten)."""


class Pages:
    """One view's pages (built once per view; each socket then takes its cut)."""

    def __init__(self, view: dict[str, Any]) -> None:
        self.view = view
        self.count = max(1, -(-len(view["standings"]) // PAGE_SIZE))
        """How many pages the standings fill (1 for an empty table)."""
        self._index_of = {line["name"]: index for index, line in enumerate(view["standings"])}
        """Each player's place in the standings (0 first)."""

    def _page_of(self, name: str | None) -> int | None:
        index = self._index_of.get(name) if name is not None else None
        return None if index is None else index // PAGE_SIZE + 1

    def shown(self, page: int | None, me: str | None) -> int:
        """The page a socket shows: ``page`` kept within the table, or (None) ``me``'s page, else 1."""
        if page is None:
            page = self._page_of(me) or 1
        return min(max(1, page), self.count)

    def key(self, page: int | None, me: str | None) -> tuple[int, str | None]:
        """What a socket's text depends on: sockets with the same key are sent the same text
        (the page shown, and ``me`` only when their line is on another page)."""
        shown = self.shown(page, me)
        mine = self._page_of(me)
        return shown, me if mine not in (None, shown) else None

    def cut(self, page: int | None, me: str | None) -> dict[str, Any]:
        """The view for a socket of ``me`` (None: a visitor) that asked for ``page`` (None: their
        own page): that page's standings, the games of its players and ``me``'s, and ``me``'s line
        as ``mine`` when it is on another page."""
        shown, off_page = self.key(page, me)
        standings = self.view["standings"]
        lines = standings[(shown - 1) * PAGE_SIZE : shown * PAGE_SIZE]
        names = {line["name"] for line in lines}
        mine = None
        if off_page is not None:
            mine = standings[self._index_of[off_page]]
            names.add(off_page)
        playing = [g for g in self.view["playing"] if g["white"] in names or g["black"] in names]
        return {
            **self.view,
            "standings": lines,
            "playing": playing,
            "page": shown,
            "pages": self.count,
            "mine": mine,
        }
