"""``exochess play``: a game at the terminal for two people (one keyboard).

Moves are typed in canonical text.  Interweave chains can be typed whole
(``a7xe7(b7),e7xa5(c6)``) or one action at a time; the board is redrawn after
every step.
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from exochess.board import Board
from exochess.cli.common import add_variant_and_fen, board_from_args
from exochess.errors import ExochessError
from exochess.geometry import parse_square
from exochess.move import Move
from exochess.outcome import Outcome, Termination
from exochess.text import render

HELP = """Commands:
  <move>          play a move in canonical text, e.g. e2-e3, d4xd6, c1@f4, d5~c5
                  (an Interweave chain may be typed whole or one action at a time)
  moves [square]  list the legal moves (of the piece on that square)
  undo            take back the last action or move
  fen             print the position as FEN
  help            this text
  quit            leave the game"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``play`` subcommand."""
    p = sub.add_parser("play", help="play a game in the terminal")
    add_variant_and_fen(p)
    p.add_argument("--computer", choices=("white", "black"), help="the engine plays this side")
    p.add_argument(
        "--level", type=int, default=4, choices=range(1, 9), metavar="N", help="engine level 1-8 (default 4)"
    )
    p.add_argument("--movetime", type=int, metavar="MS", help="engine thinking time per move")
    p.set_defaults(handler=cmd_play)


def describe_outcome(board: Board, outcome: Outcome) -> str:
    """A sentence announcing the end of the game."""
    winner = "White" if outcome.winner else "Black"
    loser = "Black" if outcome.winner else "White"
    reasons = {
        Termination.ROYAL_CAPTURE: board.variant.royal_capture_text,
        Termination.REPETITION: f"{loser} repeated a position for the third time",
        Termination.NO_LEGAL_MOVES: f"{loser} has no legal move",
        Termination.RESIGNATION: f"{loser} resigned",
    }
    return f"Game over: {winner} wins ({reasons[outcome.termination]}). Result {outcome.result()}"


class TerminalGame:
    """The read-eval-print loop of a terminal game."""

    def __init__(
        self,
        board: Board,
        out: TextIO,
        computer: bool | None = None,
        level: int = 4,
        movetime_ms: int | None = None,
    ) -> None:
        self.board = board
        self.out = out
        self.computer = computer
        """The side the engine plays (``WHITE``/``BLACK``), or None for two humans."""
        self.level = level
        self.movetime_ms = movetime_ms

    def computer_moves(self) -> None:
        """Let the engine play while it is its turn and the game goes on."""
        from exochess.engine import best_move

        board = self.board
        while self.computer is not None and board.turn == self.computer and board.outcome() is None:
            move = best_move(board, self.level, movetime_ms=self.movetime_ms, seed=board.ply())
            if board.turn_open:
                board.cancel_turn()
            board.push(move)
            self.say(f"Computer plays {move}")
            self.show()

    def say(self, text: str) -> None:
        print(text, file=self.out)

    def show(self) -> None:
        board = self.board
        highlight: set[int] = set()
        last = ""
        if board.turn_open:
            actions = board.open_actions()
            highlight = {actions[-1].from_square, actions[-1].to_square}
            last = "Turn in progress: " + ",".join(str(a) for a in actions)
        elif board.ply():
            move = board.peek()
            highlight = {move.from_square, move.to_square, *move.victims}
            last = f"Last move: {move}"
        self.say("")
        self.say(render(board, highlight=highlight))
        if last:
            self.say(last)

    def prompt(self) -> str:
        side = "White" if self.board.turn else "Black"
        return f"{side}{' (continue the chain)' if self.board.turn_open else ''}> "

    def list_moves(self, square_text: str | None) -> None:
        board = self.board
        if board.turn_open:
            texts = sorted(str(a) for a in board.legal_actions())
        else:
            moves = board.moves_from(parse_square(square_text)) if square_text else list(board.legal_moves)
            texts = sorted(str(m) for m in moves)
        self.say(" ".join(texts) if texts else "(no legal moves)")

    def play_text(self, text: str) -> None:
        """Play a whole move, or one or more actions of the open turn; bad input changes nothing."""
        board = self.board
        parsed = Move.from_text(text)
        if not board.turn_open:
            if parsed in board.legal_moves:
                board.push(parsed)
                return
            if len(parsed.actions) > 1 or parsed.actions[0] not in board.legal_actions():
                board.parse_move(text)  # raises the error that explains why the move is illegal
        trial = board.copy()
        for action in parsed.actions:
            trial.push_action(action)  # raises before the real board is touched
        for action in parsed.actions:
            board.push_action(action)

    def handle(self, line: str) -> bool:
        """Process one input line; False means the user wants to leave."""
        words = line.split()
        if not words:
            return True
        command = words[0].lower()
        if command in ("quit", "exit"):
            return False
        if command == "help":
            self.say(HELP)
        elif command == "fen":
            self.say(self.board.fen())
        elif command == "moves":
            self.list_moves(words[1] if len(words) > 1 else None)
        elif command == "undo":
            try:
                self.say(f"Undone: {self.board.pop_action()}")
                # Against the computer, take back to the human's own turn.
                while (
                    self.computer is not None
                    and (self.board.turn == self.computer or self.board.turn_open)
                    and self.board.ply()
                ):
                    self.say(f"Undone: {self.board.pop_action()}")
            except IndexError:
                self.say("Nothing to undo.")
            self.show()
        else:
            self.play_text(line.strip())
            self.show()
        return True

    def run(self, stdin: TextIO) -> int:
        self.say(f"{self.board.variant.title} - type 'help' for commands.")
        if self.board.variant.starting_position_note:
            self.say(f"Note: {self.board.variant.starting_position_note}")
        self.show()
        announced = False
        while True:
            self.computer_moves()
            outcome = self.board.outcome()
            if outcome is not None and not announced:
                self.say(describe_outcome(self.board, outcome))
                self.say("('undo' takes a move back, 'quit' leaves)")
                announced = True
            elif outcome is None:
                announced = False
            self.out.write(self.prompt())
            self.out.flush()
            line = stdin.readline()
            if not line:
                self.say("")
                return 0
            try:
                if not self.handle(line):
                    return 0
            except ExochessError as error:
                self.say(str(error))


def cmd_play(args: argparse.Namespace) -> int:
    board = board_from_args(args)
    computer = None if args.computer is None else args.computer == "white"
    game = TerminalGame(board, sys.stdout, computer, args.level, args.movetime)
    return game.run(sys.stdin)
