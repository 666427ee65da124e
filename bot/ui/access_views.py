"""What Pommel says when it may not post in a channel: to the user of a command, privately, before it
promises anything; and to a fight's GM, in a direct message, when a post was refused mid-fight."""

from __future__ import annotations

WHERE_TO_GRANT = (
    "Someone with Manage Channels can grant it in the channel's settings (Edit Channel → Permissions → "
    "Pommel's role), or a server admin to Pommel's role in Server Settings → Roles."
)
"""Where a permission is granted (a thread takes its channel's)."""


def _listed(names: list[str]) -> str:
    bold = [f"**{name}**" for name in names]
    return bold[0] if len(bold) == 1 else f"{', '.join(bold[:-1])} and {bold[-1]}"


def _grant(missing: list[str], *, thread: bool) -> str:
    where = WHERE_TO_GRANT.replace("the channel's", "the thread's channel's") if thread else WHERE_TO_GRANT
    return where if len(missing) == 1 else where.replace("grant it", "grant them")


def cannot_post_reply(what: str, missing: list[str], *, thread: bool = False, then: str) -> str:
    """The refusal of a command that would have Pommel post ``what`` here, which it may not: nothing was
    done, what it lacks, where to grant it, and what to do ``then``."""
    here = "in this thread" if thread else "in this channel"
    return (
        f"Pommel can't post {what} {here}: it lacks {_listed(missing)} here, so nothing was done. "
        f"{_grant(missing, thread=thread)} Then {then}"
    )


def cannot_post_note(channel_id: int, what: str, missing: list[str], *, error_text: str) -> str:
    """The GM's direct message when Discord refused a post of their fight's (the permissions changed
    mid-fight): where, what, why, how to mend it; said once for the fight."""
    why = f"it lacks {_listed(missing)} there" if missing else f"Discord refused it ({error_text})"
    return (
        f"⚠️ Pommel could not post {what} in <#{channel_id}>, where you run a fight: {why}. "
        "The fight itself is saved and goes on; commands still answer there. "
        f"{_grant(missing or ['a permission'], thread=False)} "
        "Then `/init show` in that channel brings the tracker back. "
        "(Pommel tells you this once for this fight.)"
    )
