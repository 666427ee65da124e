"""What /server forget asks before deleting anything, and what it says once it has."""

from __future__ import annotations

from bot.store import ForgottenGuild
from bot.ui.server_views import FORGET_BUTTON, forget_confirmation, forgotten_reply


def test_forgetting_asks_first_with_a_button_to_delete_and_one_to_keep() -> None:
    content, view = forget_confirmation(20)
    assert content.startswith("**Delete everything Pommel keeps about this server?**")
    assert "deleted for good" in content
    pressed = [FORGET_BUTTON.fullmatch(getattr(item, "custom_id", "") or "") for item in view.children]
    assert [(match["guild"], match["action"]) for match in pressed if match] == [
        ("20", "forget"),
        ("20", "keep"),
    ]


def test_what_was_deleted_is_counted() -> None:
    reply = forgotten_reply(ForgottenGuild(fights=1, ended=2, log_lines=6, characters=0, settings=False))
    assert reply.startswith(
        "🗑️ Deleted everything Pommel kept about this server: 1 running fight, 2 ended fights, 6 log lines, "
        "0 characters, no settings (none were saved)."
    )
