"""What /homebrew says: an import's additions and shadows, a refused file's every problem within one
message, and the server's entries."""

from __future__ import annotations

from bot.catalog import CatalogLayer, load_catalog
from bot.homebrew import plan_import, read_file
from bot.ui.homebrew_views import MESSAGE_LIMIT, entries_text, imported_reply, quick_npc_inputs, refused_reply
from tests.store.test_homebrew import FILE

CATALOG = load_catalog()


def test_an_import_says_what_it_added_and_shadowed() -> None:
    layer, _ = read_file(FILE, "orcs.yaml")
    _, done = plan_import(CATALOG, CatalogLayer(), layer, (), "orcs.yaml")
    reply = imported_reply(done, "orcs.yaml")
    assert "added **Orc Axe** (`orc_axe`)" in reply
    assert "on this server only: **Orcish Mail** (`mail_shirt`)" in reply
    assert "The server holds 3 homebrew entries" in reply


def test_a_refusal_of_many_problems_fits_in_one_message_and_counts_the_rest() -> None:
    reply = refused_reply(
        [f"f.yaml: weapons: entry 'w{n}': field 'reach': bad" for n in range(300)], "f.yaml"
    )
    assert len(reply) <= MESSAGE_LIMIT
    assert reply.startswith("Nothing was imported: **f.yaml** has 300 problems.")
    assert "more." in reply
    assert reply.endswith("schema: docs/HOMEBREW.md).")


def test_the_list_marks_what_shadows_a_built_in() -> None:
    layer, _ = read_file(FILE, "orcs.yaml")
    text = entries_text(layer, CATALOG)
    assert "**Armor**: **Orcish Mail** (`mail_shirt`, shadows the built-in)" in text
    assert "no homebrew yet" in entries_text(CatalogLayer(), CATALOG)


def test_the_quick_npc_form_has_five_inputs() -> None:
    assert len(quick_npc_inputs()) == 5
