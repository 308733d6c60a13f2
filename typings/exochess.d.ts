// The JSON shapes the site's scripts receive from the server (web/game/positions.py), as global
// types for the scripts' JSDoc comments (`@param {VariantInfo} variant`).  For tsc only.

declare global {
  /** A piece type in a game's legend (positions.pieces_json). */
  interface PieceInfo {
    letter: string;
    name: string;
    label: string;
    description: string;
    in_place: boolean;
  }

  /** A game as the pages know it (positions.variant_json). */
  interface VariantInfo {
    name: string;
    title: string;
    description: string;
    width: number;
    height: number;
    starting_fen: string;
    starting_position_note: string | null;
    piece_names: { [letter: string]: string };
    royal: string | null;
    pieces: PieceInfo[];
  }

  /** One action of a move: from, to, what it captured; `changes` when the tree has them. */
  interface ActionView {
    text: string;
    from: string;
    to: string;
    victims: string[];
    /** "-" a step, "x" a capture, "~" a swap, "*" a self-destruction, "@" a shot... */
    kind?: string;
    promotion?: string | null;
    changes?: [string, string][];
    end?: boolean;
  }

  /** A move as the server writes it (positions.move_json). */
  interface MoveView {
    text: string;
    from: string;
    to: string;
    victims: string[];
    actions: ActionView[];
  }
}

export {};
