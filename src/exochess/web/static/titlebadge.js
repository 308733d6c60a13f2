// @ts-check
// A player's title (lichess's "BOT" for a bot account), shown before the name the same way on
// every page that lists players (the lobby, a tournament's standings and games).

/**
 * The title's mark, to put before a name (a space between them is the caller's).
 * @param {string} title
 * @returns {HTMLElement}
 */
export function titleBadge(title) {
  const b = document.createElement("b");
  b.className = "player-title";
  b.textContent = title;
  return b;
}

/**
 * A name with its title before it, or the name alone.
 * @param {string} name
 * @param {string | null | undefined} title
 * @returns {Node[]}
 */
export function titledName(name, title) {
  return title ? [titleBadge(title), document.createTextNode(` ${name}`)] : [document.createTextNode(name)];
}
