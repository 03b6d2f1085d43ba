"""The rules reference: what the engine does for every numbered rule.

Each game's rule book (``vigil.rules.<game>.rule_book``, reached through
``GAMES[game].rule_book``) lists every rule of its text by id (DRYH-nn,
MET-nn, HUR-nn) with what the engine does for it, the **Decisions** taken
where the text is silent or ambiguous, the table options that change it and
the modules that implement it. ``COMMON`` holds what every game shares.

This is the one place those facts are written: the pages in ``docs/rules/``
are generated from it (``vigil rules-doc``, :mod:`vigil.rules_doc`), a test
keeps them in step, and docstrings elsewhere point here instead of restating
a Decision. Table options are described on their own fields (``msgspec.Meta``
descriptions), not here, so the JSON Schema and the command catalogue carry
the same words.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class Practice:
    """A rule the engine applies that has no number of its own (DRYH's session
    start, the corrections common to every game).

    ``does`` is what the engine does, in one or two plain sentences;
    ``decisions`` what it chose where the text is silent; ``options`` the
    table options that change it; ``code`` the modules implementing it, as
    dotted module names.
    """

    title: str
    does: str
    code: tuple[str, ...]
    decisions: tuple[str, ...] = ()
    options: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Rule(Practice):
    """A numbered rule: ``id`` is what events, errors and tests name."""

    id: str


@dataclass(frozen=True, kw_only=True)
class Section:
    """Rules that belong together, in the order the rule text gives them."""

    title: str
    rules: tuple[Rule, ...]
    intro: str = ""


@dataclass(frozen=True, kw_only=True)
class RuleBook:
    """One game's rules. ``source`` says which text they come from, ``state``
    what the engine keeps for a character and a table."""

    game: str
    title: str
    prefix: str
    source: str
    state: str
    sections: tuple[Section, ...]
    practices: tuple[Practice, ...] = ()

    @property
    def rules(self) -> tuple[Rule, ...]:
        return tuple(rule for section in self.sections for rule in section.rules)

    @property
    def ids(self) -> tuple[str, ...]:
        """Every rule id, in numeric order."""
        return tuple(sorted(rule.id for rule in self.rules))

    def entries(self) -> tuple[Practice, ...]:
        """Numbered rules, then the practices: everything that may hold a
        Decision or name an option."""
        return (*self.rules, *self.practices)


COMMON: tuple[Practice, ...] = (
    Practice(
        title="Corrections and revive",
        does=(
            "The GM may set any field of the state to a valid value (a correction, recorded in the "
            "history with who made it) and revive a departed, dead, insane or nightmare character into "
            "a state the GM gives. These are the only ways out of a final state; a value that does not "
            "validate is refused."
        ),
        code=("vigil.rules.engine",),
    ),
    Practice(
        title="All or nothing",
        does=(
            "Every command works on a copy of the table's state, so a command refused half-way, even "
            "after dice were drawn, leaves the table exactly as it was."
        ),
        code=("vigil.rules.engine",),
    ),
    Practice(
        title="The clock",
        does=(
            "Every timed rule is written against the table's game clock (seconds of game time), never "
            "against wall time, and the clock never goes backwards. Effects due at the same time apply "
            "in order of time, character id and rule id, so the dice drawn, and so the result, do not "
            "depend on whether the clock was advanced in one step or in many. An advance that would "
            "apply more than a set number of effects is refused."
        ),
        code=("vigil.rules.engine", "vigil.rules.clock"),
    ),
    Practice(
        title="No GM, no time",
        does=(
            "With the setting `pause_without_gm` on (the default), a running clock pauses while no GM "
            "is connected, so nobody dies between sessions."
        ),
        code=("vigil.net.hub",),
        options=("pause_without_gm",),
    ),
    Practice(
        title="Dice",
        does=(
            "The server rolls with the operating system's secure random source. With table option "
            "`manual_dice` on, the GM, and only the GM, may submit the faces the table rolled instead; "
            "they are taken in the order the rules draw them, and too few or too many is refused."
        ),
        code=("vigil.rules.dice", "vigil.rules.engine"),
        options=("manual_dice",),
    ),
    Practice(
        title="Who may do what",
        does=(
            "The server checks every command against the sender's role before the rules see it. A "
            "player acts only through its own characters, with the commands the rules give players "
            "(declaring and rolling its own roll, spending hope, resting, shaking off rattle, helping "
            "to stabilize…); everything else is the GM's."
        ),
        code=("vigil.permissions",),
    ),
    Practice(
        title="Judgement calls are inputs",
        does=(
            "What a rule text leaves to a person's judgement (a target number, a difficulty increase, "
            "whether an activity was strenuous, the Cast Lot the table cast) is an explicit argument of "
            "the command; the engine never guesses it."
        ),
        code=("vigil.rules.commands",),
    ),
    Practice(
        title="Events name their rule",
        does=(
            "Every event and error carries a code and its parameters, dice faces included, and names "
            "the rule that produced it, so the history can be audited rule by rule. Clients turn codes "
            "into sentences; the server keeps an English rendering for logs and the history export."
        ),
        code=("vigil.rules.outcome", "vigil.rules.words"),
    ),
)
"""What every game shares (the engine's part of the rules)."""
