"""What Pommel says when it may not post: what it lacks, where to grant it, and what then."""

from __future__ import annotations

from bot.ui.access_views import cannot_post_note, cannot_post_reply


def test_a_refused_command_names_what_is_missing_and_what_to_do_then() -> None:
    reply = cannot_post_reply("the tracker", ["Send Messages", "Embed Links"], then="try `/init show` again.")
    assert reply.startswith(
        "Pommel can't post the tracker in this channel: it lacks **Send Messages** and **Embed Links** here, "
        "so nothing was done. Someone with Manage Channels can grant them"
    )
    assert reply.endswith("Then try `/init show` again.")


def test_in_a_thread_the_permission_is_granted_in_its_channel() -> None:
    reply = cannot_post_reply("the tracker", ["Send Messages"], thread=True, then="retry.")
    assert "in this thread" in reply
    assert "the thread's channel's settings" in reply
    assert "grant it " in reply


def test_the_gms_note_says_where_why_and_that_the_fight_goes_on() -> None:
    note = cannot_post_note(42, "the tracker", [], error_text="403 Forbidden")
    assert note.startswith("⚠️ Pommel could not post the tracker in <#42>, where you run a fight: ")
    assert "Discord refused it (403 Forbidden)" in note
    assert "The fight itself is saved and goes on" in note
