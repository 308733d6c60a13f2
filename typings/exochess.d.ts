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

  /** A node of the legal-move tree (positions.py): one action and the actions that may follow
   * it (`next`: null where the server cut a large tree, asked for with `fetchNext`). */
  interface LegalNode extends ActionView {
    next?: LegalNode[] | null;
  }

  /** A move as the server writes it (positions.move_json). */
  interface MoveView {
    text: string;
    from: string;
    to: string;
    victims: string[];
    actions: ActionView[];
  }

  /** A websocket message, either way: its `type` says which other fields it has (the server's
   * side: routes/ws.py, routes/lobby.py, http/schemas.py). */
  interface WsMessage {
    type: string;
    ref?: string | number;
    [field: string]: any;
  }

  /** A game's state as the server sends it (game/statemodel.py's `GameState` documents every
   * field; these are the ones every state has). */
  interface GameStateJson {
    type: string;
    id: string;
    variant: VariantInfo;
    status: string;
    ply: number;
    turn: string;
    fen: string;
    [field: string]: any;
  }

  /** A chat line (social/chat.py). */
  interface ChatLine {
    color: string;
    name?: string | null;
    text: string;
  }
}

export {};
