"""A tiny Markdown renderer for the rules pages (no third-party dependency).

Supported: ATX headings (``#`` .. ``######``), paragraphs, unordered lists
(``*`` or ``-``) and ordered lists (``1.``) with indented continuation lines,
block quotes (``>``), horizontal rules (``---``), pipe tables, fenced code
blocks, and inline code, ``**bold**``, ``*italic*``/``_italic_`` and
``[links](url)``.  A fenced block whose info string names a registered
*directive* (``diagram``) is handed to that directive's function, which
returns HTML.

All text is HTML-escaped; inline code is protected from further inline
formatting, which matters for move texts such as ``e4*e5``.

>>> print(render("# Title\\n\\nSome *stress* and `e4*e5`.", id_prefix="x"))
<h1 id="x-title">Title</h1>
<p>Some <em>stress</em> and <code>e4*e5</code>.</p>
<BLANKLINE>
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping

Directive = Callable[[str], str]
"""A fenced-block handler: receives the block's text, returns HTML."""

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^\s{0,3}[*-]\s+(.*)$")
_ORDERED = re.compile(r"^\s{0,3}\d+[.)]\s+(.*)$")
_FENCE = re.compile(r"^\s{0,3}(```+|~~~+)\s*([\w-]*)\s*$")
_RULE = re.compile(r"^\s{0,3}(?:-{3,}|\*{3,}|_{3,})\s*$")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def slug(text: str) -> str:
    """An anchor name for a heading.

    >>> slug("King (K) & Queen")
    'king-k-queen'
    """
    words = re.findall(r"[a-z0-9]+", text.lower())
    return "-".join(words) or "section"


def inline(text: str) -> str:
    """Render inline Markdown of one block of text to HTML.

    >>> inline("**a** _b_ [c](http://x.org/?a=1&b=2) `<d>`")
    '<strong>a</strong> <em>b</em> <a href="http://x.org/?a=1&amp;b=2">c</a> <code>&lt;d&gt;</code>'
    """
    parts = re.split(r"(`+[^`]*?`+)", text)
    out: list[str] = []
    for part in parts:
        if len(part) >= 2 and part.startswith("`") and part.endswith("`"):
            ticks = len(part) - len(part.lstrip("`"))
            out.append("<code>" + html.escape(part[ticks:-ticks].strip(), quote=False) + "</code>")
            continue
        s = html.escape(part, quote=False)
        s = re.sub(
            r"\[([^\]]+)\]\(([^)\s]+)\)",
            lambda m: f'<a href="{html.escape(html.unescape(m.group(2)))}">{m.group(1)}</a>',
            s,
        )
        s = re.sub(r"\*\*(?=\S)(.+?)(?<=\S)\*\*", r"<strong>\1</strong>", s)
        s = re.sub(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])", r"<em>\1</em>", s)
        s = re.sub(r"(?<![\w])_(?=\S)(.+?)(?<=\S)_(?![\w])", r"<em>\1</em>", s)
        out.append(s)
    return "".join(out)


def _table(rows: list[str]) -> str:
    def cells(row: str) -> list[str]:
        row = row.strip()
        if row.startswith("|"):
            row = row[1:]
        if row.endswith("|") and not row.endswith("\\|"):
            row = row[:-1]
        # split on pipes that are not inside inline code
        result: list[str] = []
        current = ""
        in_code = False
        for ch in row:
            if ch == "`":
                in_code = not in_code
            if ch == "|" and not in_code:
                result.append(current.strip())
                current = ""
            else:
                current += ch
        result.append(current.strip())
        return result

    head = cells(rows[0])
    body = [cells(r) for r in rows[2:]]
    out = [
        "<table>",
        "<thead><tr>" + "".join(f"<th>{inline(c)}</th>" for c in head) + "</tr></thead>",
        "<tbody>",
    ]
    for row in body:
        row = (row + [""] * len(head))[: len(head)]
        out.append("<tr>" + "".join(f"<td>{inline(c)}</td>" for c in row) + "</tr>")
    out.append("</tbody>")
    out.append("</table>")
    return "\n".join(out)


def render(text: str, *, directives: Mapping[str, Directive] | None = None, id_prefix: str = "") -> str:
    """Render a Markdown document (the supported subset) to an HTML fragment."""
    directives = directives or {}
    lines = text.replace("\r\n", "\n").replace("\t", "    ").split("\n")
    out: list[str] = []
    used_ids: dict[str, int] = {}
    i = 0
    n = len(lines)

    def heading_id(title: str) -> str:
        base = slug(title)
        if id_prefix:
            base = f"{id_prefix}-{base}"
        count = used_ids.get(base, 0)
        used_ids[base] = count + 1
        return base if count == 0 else f"{base}-{count + 1}"

    def starts_block(line: str) -> bool:
        return bool(
            _HEADING.match(line)
            or _FENCE.match(line)
            or _BULLET.match(line)
            or _ORDERED.match(line)
            or _RULE.match(line)
            or line.lstrip().startswith(">")
        )

    while i < n:
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        fence = _FENCE.match(line)
        if fence:
            marker, info = fence.group(1), fence.group(2)
            body: list[str] = []
            i += 1
            while i < n and not lines[i].strip().startswith(marker[:3]):
                body.append(lines[i])
                i += 1
            i += 1  # closing fence (or end of text)
            content = "\n".join(body)
            if info in directives:
                out.append(directives[info](content))
            else:
                cls = f' class="language-{html.escape(info)}"' if info else ""
                out.append(f"<pre><code{cls}>{html.escape(content, quote=False)}</code></pre>")
            continue
        m = _HEADING.match(line)
        if m:
            level = len(m.group(1))
            title = m.group(2)
            out.append(f'<h{level} id="{heading_id(title)}">{inline(title)}</h{level}>')
            i += 1
            continue
        if _RULE.match(line):
            out.append("<hr>")
            i += 1
            continue
        if line.lstrip().startswith(">"):
            quoted: list[str] = []
            while i < n and lines[i].lstrip().startswith(">"):
                quoted.append(lines[i].lstrip()[1:].removeprefix(" "))
                i += 1
            out.append(
                "<blockquote>\n"
                + render("\n".join(quoted), directives=directives, id_prefix=id_prefix)
                + "</blockquote>"
            )
            continue
        if "|" in line and i + 1 < n and _TABLE_SEP.match(lines[i + 1]):
            rows = [line, lines[i + 1]]
            i += 2
            while i < n and lines[i].strip() and "|" in lines[i]:
                rows.append(lines[i])
                i += 1
            out.append(_table(rows))
            continue
        bullet = _BULLET.match(line)
        ordered = _ORDERED.match(line)
        if bullet or ordered:
            pattern = _BULLET if bullet else _ORDERED
            tag = "ul" if bullet else "ol"
            items: list[list[str]] = []
            while i < n:
                current = lines[i]
                item = pattern.match(current)
                if item:
                    items.append([item.group(1)])
                    i += 1
                    continue
                if current.strip() and current.startswith("  ") and items:
                    items[-1].append(current.strip())
                    i += 1
                    continue
                if (
                    not current.strip()
                    and i + 1 < n
                    and (
                        pattern.match(lines[i + 1])
                        or (lines[i + 1].startswith("  ") and lines[i + 1].strip())
                    )
                ):
                    i += 1
                    continue
                break
            out.append(f"<{tag}>")
            out.extend(f"<li>{inline(' '.join(item))}</li>" for item in items)
            out.append(f"</{tag}>")
            continue
        para: list[str] = []
        while i < n and lines[i].strip() and not (para and starts_block(lines[i])):
            if "|" in lines[i] and i + 1 < n and _TABLE_SEP.match(lines[i + 1]):
                break
            para.append(lines[i].strip())
            i += 1
        out.append(f"<p>{inline(' '.join(para))}</p>")
    return "\n".join(out) + "\n"
