"""``exochess bot``: play on an exochess site as a bot account, through its public API.

The account's token (scope ``bot:play``; made on the site's account page) comes from
``--token-file`` (better: a command line is visible to every user of the machine) or
``--token``.  ``--upgrade`` turns the account into a BOT first (for good).  Challenges are
accepted by the rules given (games, kinds of clock, initial time, rated or casual), and each
game is played by an engine program speaking the engine protocol (``--engine``; default this
package's own engine at ``--level``).  ``--challenge NAME`` sends one challenge on starting
(``--challenge-game``, ``--challenge-clock M+S``, ``--challenge-rated``).  ``--join-arena ID``
and ``--join-swiss ID`` enter tournaments open to bots on starting: their games come as any
other (an arena pairs the bot while it runs).  ``--games N`` stops after N finished games
(default: run until interrupted).

Registered in :mod:`exochess.cli.main` through :func:`register`.
"""

from __future__ import annotations

import argparse
import logging
import sys
import threading
from pathlib import Path
from typing import Any

from exochess.cli.common import CliError

SPEEDS = ("clock", "correspondence", "unlimited")


def register(sub: Any) -> None:
    p = sub.add_parser("bot", help="play on an exochess site as a bot account (its public API)")
    p.add_argument("--url", required=True, help="the site, e.g. https://exochess.example")
    p.add_argument(
        "--token", help="the account's API token (scope bot:play); visible to ps: prefer --token-file"
    )
    p.add_argument("--token-file", type=Path, help="a file holding the API token")
    p.add_argument(
        "--engine",
        help='a command speaking the engine protocol, e.g. "./my-engine --hash 64" '
        "(default: exochess engine at --level)",
    )
    p.add_argument("--level", type=int, default=3, help="the engine's level, 1-8 (default 3)")
    p.add_argument("--upgrade", action="store_true", help="make the account a BOT first (for good)")
    p.add_argument("--games", type=int, help="stop after this many finished games")
    p.add_argument("--variants", help="the games to accept, comma-separated (default: all)")
    p.add_argument(
        "--speeds",
        default=",".join(SPEEDS),
        help="kinds of time control to accept, among clock, correspondence, unlimited (default: all)",
    )
    p.add_argument("--min-initial", type=int, default=0, help="shortest initial clock accepted, seconds")
    p.add_argument(
        "--max-initial", type=int, default=3 * 3600, help="longest initial clock accepted, seconds"
    )
    p.add_argument(
        "--rated", choices=("yes", "no", "both"), default="both", help="rated, casual or both (default)"
    )
    p.add_argument("--max-games", type=int, default=4, help="games at once (default 4)")
    p.add_argument("--challenge", metavar="NAME", help="challenge this account on starting")
    p.add_argument("--challenge-game", default="fugue", help="the challenge's game (default fugue)")
    p.add_argument("--challenge-clock", default="3+2", help='its clock: "M+S", "Nd" or "-" (default 3+2)')
    p.add_argument("--challenge-rated", action="store_true", help="make the challenge rated")
    p.add_argument(
        "--join-arena",
        metavar="ID",
        action="append",
        default=[],
        help="enter this arena on starting (repeatable)",
    )
    p.add_argument(
        "--join-swiss",
        metavar="ID",
        action="append",
        default=[],
        help="enter this Swiss event on starting (repeatable)",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="log each step")
    p.set_defaults(handler=cmd_bot)


def _token(args: argparse.Namespace) -> str:
    if args.token_file is not None:
        try:
            text: str = args.token_file.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise CliError(f"cannot read the token file: {exc}") from exc
        return text
    if args.token:
        return str(args.token)
    raise CliError("give the account's API token: --token-file FILE (or --token TOKEN)")


def _clock(text: str) -> dict[str, Any]:
    """The challenge call's clock arguments from ``M+S``, ``Nd`` or ``-``."""
    try:
        if text == "-":
            return {}
        if text.endswith("d"):
            return {"days": int(text[:-1])}
        minutes, _, increment = text.partition("+")
        return {"limit_s": round(float(minutes) * 60), "increment_s": int(increment or 0)}
    except ValueError:
        raise CliError(f'--challenge-clock: {text!r} is not "M+S", "Nd" or "-"') from None


def cmd_bot(args: argparse.Namespace) -> int:
    try:
        from exochess.client import ApiError, Client
        from exochess.client.bot import Bot, Rules, protocol_engines
        from exochess.client.engine import default_command
    except ImportError as exc:  # httpx: the client extra
        raise CliError(f"the bot needs the client extra: pip install 'exochess[client]' ({exc})") from exc
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(name)s %(message)s",
        stream=sys.stderr,
    )
    speeds = frozenset(s.strip() for s in args.speeds.split(",") if s.strip())
    if not speeds <= set(SPEEDS):
        raise CliError(f"--speeds: choose among {', '.join(SPEEDS)}")
    rules = Rules(
        variants=frozenset(v.strip() for v in args.variants.split(",")) if args.variants else None,
        speeds=speeds,
        min_limit_s=args.min_initial,
        max_limit_s=args.max_initial,
        rated={"yes": True, "no": False}.get(args.rated),
        max_games=args.max_games,
    )
    engines = protocol_engines(args.engine or default_command(), None if args.engine else args.level)
    with Client(args.url, _token(args)) as client:
        try:
            if args.upgrade:
                client.upgrade_to_bot()
            for tournament_id in args.join_arena:
                client.join_tournament(tournament_id, "arena")
            for tournament_id in args.join_swiss:
                client.join_tournament(tournament_id, "swiss")
            bot = Bot(client, engines, rules, games=args.games, stop=threading.Event())
            if args.challenge:
                # sent once the event stream is open, so that the game's start is not missed
                threading.Thread(target=_challenge_soon, args=(bot, client, args), daemon=True).start()
            bot.run()
        except ApiError as exc:
            raise CliError(str(exc)) from exc
    return 0


def _challenge_soon(bot: Any, client: Any, args: argparse.Namespace) -> None:
    from exochess.client import ApiError

    while not bot.name and not bot.stop.is_set():
        bot.stop.wait(0.1)  # run() reads the account's name first
    try:
        made = client.challenge(
            args.challenge, args.challenge_game, rated=args.challenge_rated, **_clock(args.challenge_clock)
        )
        logging.getLogger("exochess.bot").info("challenge %s sent to %s", made.get("id"), args.challenge)
    except (ApiError, CliError) as exc:
        print(f"exochess: error: the challenge was not sent: {exc}", file=sys.stderr)
