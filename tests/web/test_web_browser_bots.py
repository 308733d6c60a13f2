"""The bots page in Chromium (issue 47): a signed-in person challenges the house bot ExoBot-L1
from /bots, the page follows the account's event stream to the game, and the game page shows
the bot's BOT title; a token is made and revoked on the account page."""

from __future__ import annotations

import secrets
from typing import Any

from tests.web.serverproc import Server

PASSWORD = "a long password"
WAIT_MS = 120_000


def test_a_person_challenges_a_house_bot_from_the_bots_page(page: Any, server: Server) -> None:
    name = f"p{secrets.token_hex(5)}"
    page.goto("/signup?next=/bots")
    page.fill("#name", name)
    page.fill("#password", PASSWORD)
    page.click("#submit")
    page.wait_for_url("**/bots")
    row = page.locator('tr[data-bot="ExoBot-L1"]')
    assert "BOT" in row.inner_text()
    page.select_option("#bot-variant", "fugue")
    page.select_option("#bot-time", "5+3")
    row.locator("button.challenge-bot").click()
    page.wait_for_url("**/game/*", timeout=WAIT_MS)
    page.wait_for_function(
        "document.querySelector('#players') && document.querySelector('#players').textContent.includes('BOT ExoBot-L1')",
        timeout=WAIT_MS,
    )


def test_a_token_is_made_and_revoked_on_the_account_page(page: Any, server: Server) -> None:
    name = f"t{secrets.token_hex(5)}"
    page.goto("/signup?next=/account")
    page.fill("#name", name)
    page.fill("#password", PASSWORD)
    page.click("#submit")
    page.wait_for_url("**/account")
    page.fill("#token-description", "my engine")
    page.check('input[name="scopes"][value="bot:play"]')
    page.click("#token-form button[type=submit]")
    page.wait_for_selector("#token-new:not([hidden])", timeout=WAIT_MS)
    token = page.locator("#token-text").inner_text()
    assert token.startswith("exo_")
    item = page.locator("#token-list li")
    assert "my engine (bot:play)" in item.inner_text()
    assert page.request.get("/api/account", headers={"Authorization": f"Bearer {token}"}).status == 200
    item.locator("button.revoke").click()
    page.wait_for_selector("#no-tokens:not([hidden])", timeout=WAIT_MS)
    refused = page.request.get("/api/account", headers={"Authorization": f"Bearer {token}"})
    assert refused.status == 401
