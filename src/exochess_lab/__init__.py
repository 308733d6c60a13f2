"""The engine's laboratory: the tools that measure the engine, kept out of the engine itself.

* :mod:`exochess_lab.match`: engine-against-engine matches (levels, players with changed search
  switches or evaluation weights, external programs), Elo with intervals, SPRT runs;
* :mod:`exochess_lab.sprt`: the sequential test's statistics (pentanomial counts, GSPRT);
* :mod:`exochess_lab.record`: the match record, one line per game, from which a run resumes;
* :mod:`exochess_lab.external`: another engine process spoken to through the engine protocol;
* :mod:`exochess_lab.parallel`: one fresh process per task, a few at once.

The package ships beside :mod:`exochess` so that ``exochess match`` works wherever exochess is
installed, but it sits above it: it imports the engine and the games, and nothing in
:mod:`exochess` imports it but the command line (``tests/core/test_layers.py``).  The web site
and the engine protocol never load it.  ``bench/`` scripts (ladder, tuning, value fitting) build
on it.
"""
