"""Tournament pairing and standings: pure functions, no web, no storage.

The web site's tournaments (issue 46) build on this package:

* :mod:`.arena` pairs the players waiting in an arena (close score, then close rating, never
  the last opponent again when anyone else can be found, colours balanced) and scores arena
  games (2/1/0, doubled on a winning streak, a bonus point for a berserked win);
* :mod:`.swiss` pairs a Swiss round by the FIDE Dutch system (through the
  ``caissify-pairings`` library, docs/decisions/0016) from the rounds played so far, with
  byes, late joiners and withdrawals;
* :mod:`.standings` ranks a Swiss with its tie-breaks (Buchholz, Buchholz cut-1,
  Sonneborn-Berger, wins) in a deterministic order.

docs/tournaments.md describes the rules each function follows.
"""
