"""The fight in one channel or thread, saved whole as one typed document with a version number.

The document holds the roster (player characters and NPCs), who holds which initiative card, each
combatant's Martial Pool, HP and conditions, and where the tracker message is. Its methods are the
table's bookkeeping over the rules core: they check, change the document and return what happened,
and raise :class:`~bot.rules.errors.RulesError` without changing anything when a request is refused.
Nothing here knows Discord or the database; user and channel ids are plain numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from ..catalog import CatalogLayer
from ..characters import MAX_NAME_LENGTH, Character, name_key
from ..rules.dice import DiceSource
from ..rules.engagement import Engagement, pair_key
from ..rules.equipment import Armor, MonsterTemplate
from ..rules.errors import IllegalAction, RulesError, echoed, shown
from ..rules.initiative import DealResult, InitiativeState
from ..rules.movement import SHIELD_WALL_MOVES
from ..rules.options import DEFAULT_OPTIONS, RuleOptions
from ..rules.pool import MartialPool, pool_size
from ..rules.situations import Steed
from ..rules.turns import Advance, TurnFlow, act, begin_round, deal, drop_holder, hold, next_turn
from ..table_options import TableOptions
from .combatants import Combatant, Side
from .records import Blow, Exchange, FightMessage, MoraleProposal, Reaction, ReactionKind

MAX_COMBATANTS = 60
"""More than a table can follow; also keeps the tracker within Discord's message limits."""
HOLDER_NAME_LIMIT = 80
"""A player's card is named after all their characters in the fight; where a card's holder is named (the
tracker, a refusal) a long list is cut to this many characters (escaping Markdown may double them)."""


class TrackerMessage(BaseModel):
    """Where the tracker message is, so it can be edited in place."""

    channel_id: int
    message_id: int


def fight_tag(started_at: datetime) -> str:
    """The :attr:`Encounter.tag` of a fight started at ``started_at``."""
    return format(int(started_at.timestamp() * 1000) % 16**8, "x")


class Encounter(BaseModel):
    """Everything a fight needs to carry on after a restart.

    ``version`` is the store's compare-and-set counter: 0 for a document never saved, then one more
    at every save. A save that starts from a version the store no longer holds is refused, so a
    stale or concurrent write can never silently overwrite another.
    """

    model_config = ConfigDict(extra="forbid")

    channel_id: int
    """The channel or thread the fight runs in; at most one fight per channel."""
    guild_id: int | None
    gm_id: int
    """The user running the fight."""
    version: int = 0
    options: RuleOptions = DEFAULT_OPTIONS
    table: TableOptions = Field(default_factory=TableOptions)
    initiative: InitiativeState = Field(default_factory=InitiativeState)
    flow: TurnFlow = Field(default_factory=TurnFlow)
    started_at: AwareDatetime = Field(default_factory=lambda: datetime.now(UTC))
    combatants: list[Combatant] = Field(default_factory=list)
    next_id: int = 1
    tracker: TrackerMessage | None = None
    engagements: dict[str, Engagement] = Field(default_factory=dict)
    """R12: the range of each pair that has fought, by :func:`~bot.rules.engagement.pair_key`."""
    exchanges: list[Exchange] = Field(default_factory=list)
    """Attacks waiting for a defense, and the latest resolved ones (whose choices may still be open)."""
    next_exchange: int = 1
    reactions: list[Reaction] = Field(default_factory=list)
    """Counterattacks and opportunity attacks owed this round (R12, R14)."""
    blows: list[Blow] = Field(default_factory=list)
    """Who attacked whom this round (R25 numbers); cleared at every deal."""
    morale_proposals: list[MoraleProposal] = Field(default_factory=list)
    """R22: morale checks the bot proposed and the GM has not rolled or dismissed yet."""
    next_proposal: int = 1
    departed: list[Combatant] = Field(default_factory=list, max_length=MAX_COMBATANTS)
    """Player characters taken out of this fight, as they were when they left: one that joins again
    comes back as it left (HP, pool, conditions), so leaving and rejoining is no free rest."""
    waiting: str | None = None
    """The turn or offered turn the fight last saw begin ("turn:<step>", "offer:<step>"), and since
    when: what a reminder counts from (:mod:`bot.encounter.reminders`)."""
    waiting_since: AwareDatetime | None = None
    reminded: list[str] = Field(default_factory=list)
    """The waits already reminded (their keys, only those still waiting), so none is reminded twice."""
    messages: list[FightMessage] = Field(default_factory=list)
    """The messages of the channel that show a step of this fight with buttons that may act on it
    (requests, results, proposals): every change brings their buttons up to date."""
    homebrew: CatalogLayer = Field(default_factory=CatalogLayer)
    """The server's own catalog entries this fight's combatants carry, as they were when they came in
    (:mod:`bot.encounter.kept_entries`): a later edit of the server's homebrew changes no running fight."""

    @property
    def tag(self) -> str:
        """A short mark of this fight, another for the next fight in the same channel: buttons that act
        on a fight carry it, so a button left from an ended fight cannot act on the new one."""
        return fight_tag(self.started_at)

    # ----------------------------------------------------------------------------- roster

    def combatant(self, wanted: str) -> Combatant:
        """A combatant by id ("c3") or by name, ignoring case; a refusal names who is in the fight."""
        for combatant in self.combatants:
            if combatant.id == wanted:
                return combatant
        folded = name_key(wanted)
        for combatant in self.combatants:
            if name_key(combatant.name) == folded:
                return combatant
        names = ", ".join(shown(c.name) for c in self.combatants[:10]) or "nobody yet"
        raise RulesError(f"Nobody called '{echoed(wanted)}' is in this fight. In it: {names}.")

    @property
    def groups(self) -> list[str]:
        """The NPC groups' names in the order their first member still in the fight joined (R2 deals
        them in this order, after the players)."""
        return list(dict.fromkeys(c.group for c in self.combatants if c.group is not None))

    def group_named(self, wanted: str) -> str | None:
        """The NPC group a value names: a group's card holder ("g:bandits", as the autocomplete offers
        it) or a group's name, ignoring case; None when it names no group."""
        for group in self.groups:
            if wanted == group_holder(group):
                return group
        if wanted.startswith(GROUP_PREFIX):
            return None
        for group in self.groups:
            if group_holder(group) == group_holder(wanted):
                return group
        return None

    def members(self, holder: str) -> list[Combatant]:
        """Everyone acting on ``holder``'s card: a player's characters, or an NPC group."""
        return [combatant for combatant in self.combatants if combatant.holder == holder]

    def holders(self) -> list[str]:
        """R2: who is dealt a card, in dealing order: players by joining order, then NPC groups."""
        players: list[str] = []
        for combatant in self.combatants:
            if combatant.side is Side.PLAYER and combatant.holder not in players:
                players.append(combatant.holder)
        return players + [group_holder(group) for group in self.groups]

    def holder_name(self, holder: str) -> str:
        """How the tracker names a card's holder: the NPC group, or the player's characters."""
        members = self.members(holder)
        if holder.startswith(GROUP_PREFIX):
            group = members[0].group if members else None
            return group or holder.removeprefix(GROUP_PREFIX)
        return " & ".join(member.name for member in members) or "a player who left"

    def holder_owner(self, holder: str) -> int | None:
        """The player who plays ``holder``'s card; None for NPC groups (the GM plays them)."""
        if holder.startswith(PLAYER_PREFIX):
            return int(holder.removeprefix(PLAYER_PREFIX))
        return None

    def is_npc_holder(self, holder: str) -> bool:
        return holder.startswith(GROUP_PREFIX)

    def join(self, owner_id: int, character: Character, armor: Armor | None) -> Combatant:
        """A player's saved character joins the fight; it acts on its player's card (R2).

        Joining during a round gives no card until the next deal, unless the player already holds one.
        """
        if any(c.owner_id == owner_id and c.character == character.key for c in self.combatants):
            raise IllegalAction(f"{shown(character.name)} is already in this fight.")
        self._require_room(1)
        returning = self.departed_as(owner_id, character.key)
        if returning is not None:
            self.departed.remove(returning)
            returning.name = self._free_name(returning.name)
            self.combatants.append(returning)
            return returning
        combatant = Combatant(
            id=self._new_id(),
            name=self._free_name(character.name),
            side=Side.PLAYER,
            owner_id=owner_id,
            holder=player_holder(owner_id),
            character=character.key,
            prowess=character.prowess,
            dex_mod=character.dexterity,
            int_mod=character.intelligence,
            wis_mod=character.wisdom,
            cha_mod=character.charisma,
            int_score=character.int_score,
            wis_score=character.wis_score,
            cha_score=character.cha_score,
            proficiency=character.proficiency,
            max_hp=character.hp,
            hp=character.hp,
            weapon=character.weapon,
            off_hand=character.off_hand,
            armor=character.armor,
            shield=character.shield,
            knightly_combat=character.knightly_combat,
            feats=list(character.feats),
            magic_ac=character.magic_ac,
            pool=MartialPool.full(pool_size(character.prowess, armor)),
        )
        self.combatants.append(combatant)
        return combatant

    def add_npcs(
        self,
        template: MonsterTemplate,
        armor: Armor | None,
        *,
        count: int,
        name: str | None = None,
        group: str | None = None,
        leader: bool = False,
        prowess: int | None = None,
        dex_mod: int | None = None,
        hp: int | None = None,
        morale: int | None = None,
    ) -> list[Combatant]:
        """The GM adds ``count`` NPCs built from a monster template, all in one group (one card, R2).

        Several get numbered names ("Bandit 1", "Bandit 2"); ``leader`` makes the first the group's
        leader (R22). ``prowess``, ``dex_mod``, ``hp`` and ``morale`` replace the template's numbers.
        """
        if count < 1:
            raise RulesError("Add at least one NPC.")
        base = (name or template.name).strip()
        group_name = (group or (base if count == 1 else plural(base))).strip()
        if not base or not group_name:
            raise RulesError("An NPC needs a name with at least one letter or digit in it.")
        for existing in self.combatants:
            if existing.side is Side.PLAYER and name_key(existing.name) == name_key(group_name):
                raise IllegalAction(
                    f"'{shown(group_name)}' is a player's character; give the NPC group another name."
                )
        prowess = template.prowess if prowess is None else prowess
        dex_mod = template.dex_mod if dex_mod is None else dex_mod
        hp = max(1, template.hp if hp is None else hp)
        morale = template.morale if morale is None else morale
        if len(base) > MAX_NAME_LENGTH:
            raise RulesError(f"An NPC's name can be at most {MAX_NAME_LENGTH} characters long.")
        self._require_room(count)
        names = self._numbered(base, count)
        known = next((g for g in self.groups if name_key(g) == name_key(group_name)), None)
        group_name = known or group_name
        holder = group_holder(group_name)
        added = [
            Combatant(
                id=f"c{self.next_id + index}",
                name=self._free_name(npc_name),
                side=Side.NPC,
                holder=holder,
                group=group_name,
                leader=leader and index == 0,
                template=template.key,
                prowess=prowess,
                dex_mod=dex_mod,
                int_mod=template.int_mod,
                wis_mod=template.wis_mod,
                cha_mod=template.cha_mod,
                max_hp=hp,
                hp=hp,
                weapon=template.weapon,
                off_hand=template.off_hand,
                armor=template.armor,
                shield=template.shield,
                morale=morale,
                ac_modifier=template.ac_modifier,
                size=template.size,
                spirit=template.spirit,
                demon=template.demon,
                hit_dice=template.hit_dice,
                knightly_combat=template.knightly_combat,
                steed=Steed(template.steed) if template.steed else None,
                constructed=template.constructed,
                pool=MartialPool.full(pool_size(prowess, armor)),
            )
            for index, npc_name in enumerate(names)
        ]
        if leader:  # R22: a group has one leader; the new one takes over
            for member in self.members(holder):
                member.leader = False
        self.next_id += len(added)
        self.combatants.extend(added)
        return added

    def remove(self, combatant: Combatant) -> str | None:
        """Take a combatant out of the fight. When it was the last on its card, the card is discarded
        (R2) and its holder's name is returned for the log."""
        if all(c.id != combatant.id for c in self.combatants):
            raise RulesError(f"{shown(combatant.name)} is not in this fight, so there is nobody to remove.")
        self.combatants = [c for c in self.combatants if c.id != combatant.id]
        if combatant.side is Side.PLAYER:
            same = (combatant.owner_id, combatant.character)
            kept = [c for c in self.departed if (c.owner_id, c.character) != same]
            self.departed = [*kept[-(MAX_COMBATANTS - 1) :], combatant]
        gone = combatant.id
        self.exchanges = [e for e in self.exchanges if gone not in (e.attacker, e.defender)]
        self.reactions = [r for r in self.reactions if gone not in (r.by, r.against)]
        self.blows = [b for b in self.blows if gone not in (b.by, b.against)]
        for other in self.combatants:
            if other.position.mount == gone:
                other.position.mount = None
            if other.position.beside == gone:
                other.position.beside = None
        self.engagements = {pair: e for pair, e in self.engagements.items() if gone not in pair.split("|")}
        if self.members(combatant.holder):
            return None
        state = self.initiative
        if combatant.holder in state.cards or combatant.holder in state.acted:
            state.remove_holder(combatant.holder)
        drop_holder(self.flow, combatant.holder)
        return combatant.holder

    def take_out(self, targets: Sequence[Combatant]) -> tuple[Combatant | None, bool]:
        """Remove ``targets`` (all acting on one card). Returns the one whose leaving emptied the card (R2:
        it is discarded), None while someone is left on it, and whether the turn in progress was theirs
        (it is over)."""
        acting = self.initiative.turn_of == targets[0].holder
        emptied: Combatant | None = None
        for target in targets:
            if self.remove(target) is not None:
                emptied = target
        return emptied, acting and self.initiative.turn_of is None

    def departed_as(self, owner_id: int, character: str) -> Combatant | None:
        """The player's character ``character`` (by name key) as it left this fight, if it did."""
        return next((c for c in self.departed if (c.owner_id, c.character) == (owner_id, character)), None)

    def rename(self, combatant: Combatant, name: str) -> None:
        """A new name, unique in the fight ignoring case like every combatant's."""
        clash = next(
            (c for c in self.combatants if c.id != combatant.id and name_key(c.name) == name_key(name)),
            None,
        )
        if clash is not None:
            raise IllegalAction(f"{clash.name} is already in this fight; pick another name.")
        combatant.name = name

    def engagement(self, a: Combatant, b: Combatant) -> Engagement:
        """R12: the range kept for the pair (Onset until they first fight), to change it."""
        return self.engagements.setdefault(pair_key(a.id, b.id), Engagement())

    def engagement_now(self, a: Combatant, b: Combatant) -> Engagement:
        """R12: the pair's range as it stands, to read (a pair that never fought is at Onset); reading
        it leaves the fight as it was."""
        return self.engagements.get(pair_key(a.id, b.id)) or Engagement()

    def reaction(
        self, by: Combatant, against: Combatant, kind: ReactionKind | None = None
    ) -> Reaction | None:
        """A counterattack or opportunity attack ``by`` may make on ``against`` now, if any."""
        for reaction in self.reactions:
            if reaction.by == by.id and reaction.against == against.id and kind in (None, reaction.kind):
                return reaction
        return None

    def exchange(self, exchange_id: int) -> Exchange:
        for exchange in self.exchanges:
            if exchange.id == exchange_id:
                return exchange
        raise RulesError("That attack is no longer open; it was resolved long ago or the fight moved on.")

    def _require_room(self, adding: int) -> None:
        """Checked before anything changes, so that a refused addition leaves the document as it was."""
        if len(self.combatants) + adding > MAX_COMBATANTS:
            raise RulesError(
                f"A fight holds at most {MAX_COMBATANTS} combatants; this one has {len(self.combatants)}. "
                "Remove the fallen before adding more."
            )

    def _new_id(self) -> str:
        new = f"c{self.next_id}"
        self.next_id += 1
        return new

    def _numbered(self, base: str, count: int) -> list[str]:
        """Names for ``count`` new NPCs: the base name alone for one whose name is free, else numbered
        on from the numbers already taken ("Bandit 3" after "Bandit 1" and "Bandit 2"), a second lone
        one from 2."""
        taken = {name_key(c.name) for c in self.combatants}
        if count == 1 and name_key(base) not in taken:
            return [base]
        names: list[str] = []
        n = 1 if count > 1 else 2  # a second lone "Bandit" is "Bandit 2"
        while len(names) < count:
            candidate = _fit(base, f" {n}")
            if name_key(candidate) not in taken:
                names.append(candidate)
            n += 1
        return names

    def _free_name(self, wanted: str) -> str:
        taken = {name_key(c.name) for c in self.combatants}
        if name_key(wanted) not in taken:
            return wanted
        n = 2
        while name_key(_fit(wanted, f" ({n})")) in taken:
            n += 1
        return _fit(wanted, f" ({n})")

    # ----------------------------------------------------------------------------- rounds and turns

    def deal(self, dice: DiceSource) -> tuple[DealResult, Advance]:
        """R2, R5, R8: a new round: every Martial Pool refills, a card goes to each player and group,
        and the highest card's turn starts (unless the turn is first offered to held cards, R3/R4)."""
        holders = self.holders()
        if not holders:
            raise RulesError("Nobody is in the fight yet: players /join, the GM adds NPCs with /npc add.")
        result = deal(self.initiative, self.flow, holders, dice)
        for combatant in self.combatants:
            combatant.pool.refill(combatant.pool.size, self.options.desperation_min_pool)
            # R25: keeping a shield wall takes half of the round's movement (SHIELD_WALL_MOVES).
            combatant.moves = SHIELD_WALL_MOVES if combatant.position.shield_wall else 0
        for engagement in self.engagements.values():
            engagement.new_round()
        self.reactions = []
        self.blows = []
        for exchange in self.exchanges:
            exchange.follow_ups = False
        return result, begin_round(self.initiative, self.flow, self.table.claim_pause)

    def next_turn(self) -> Advance:
        """R1, R3, R4: Next — see :func:`bot.rules.turns.next_turn`."""
        self._require_dealt()
        return next_turn(self.initiative, self.flow, self.table.claim_pause)

    def hold(self) -> Advance:
        """R4: Hold — the turn in progress flips its card face down."""
        self._require_dealt()
        return hold(self.initiative, self.flow, self.table.claim_pause)

    def act(self, holder: str) -> Advance:
        """R3, R4: Act — a held card or Joker claims the next turn."""
        self._require_dealt()
        return act(self.initiative, self.flow, holder)

    def _require_dealt(self) -> None:
        if self.initiative.round == 0:
            raise IllegalAction("No cards have been dealt yet. The GM deals to start round 1 (/init deal).")


def plural(noun: str) -> str:
    """An English plural good enough for group names: Bandits, Wolves, Foxes, Harpies.

    It is a name too, so it is shortened to stay within ``MAX_NAME_LENGTH``."""
    lower = noun.lower()
    if lower.endswith(("s", "x", "z", "ch", "sh")):
        return _fit(noun, "es")
    if lower.endswith("y") and lower[-2:-1] not in ("a", "e", "i", "o", "u"):
        return _fit(noun[:-1], "ies")
    if lower.endswith("fe"):
        return _fit(noun[:-2], "ves")
    if lower.endswith("f"):
        return _fit(noun[:-1], "ves")
    return _fit(noun, "s")


def _fit(name: str, suffix: str) -> str:
    """``name`` with ``suffix`` added, shortened so that the whole stays a valid name."""
    return name[: MAX_NAME_LENGTH - len(suffix)].rstrip() + suffix


PLAYER_PREFIX = "p"
GROUP_PREFIX = "g:"


def player_holder(user_id: int) -> str:
    """R2: a player's card; the player's characters and retainers all act on it."""
    return f"{PLAYER_PREFIX}{user_id}"


def group_holder(group: str) -> str:
    """R2: an NPC group's card."""
    return f"{GROUP_PREFIX}{name_key(group)}"
