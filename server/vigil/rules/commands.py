"""Commands common to every game.

Each game adds its own command Structs in its module; all share the tagged
union convention (``type`` field) so the protocol can put them in one union.
``forbid_unknown_fields`` because msgspec otherwise ignores a misspelled
field, and a GM's typo must be an error, not a silent no-op.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec


def whole(chars: str) -> str:
    """The pattern of a string made only of ``chars``, that means the same
    to Python's ``re`` (which validates input) as to a JSON Schema's
    ECMA-262 regex (which the committed schemas state): Python's ``$`` also
    matches before a final newline, so a lookahead refuses any newline. It
    stays anchored ``^…$``, as HTML's pattern attribute needs (forms.js)."""
    return rf"^(?!.*\n){chars}$"


Ident = Annotated[str, msgspec.Meta(min_length=1, max_length=64, pattern=whole("[A-Za-z0-9_.:-]+"))]
"""The form of a stable id (a character's, a poison's): safe in a JSON
Patch path, a log line and a URL."""
StoredId = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
"""An id as a table document keeps it (the keys of its characters, in every
game alike): checked as an :data:`Ident` when it came in, and not again on
load, so that a document holding an id from before the check was whole
(one ending in a newline) still loads."""
CharId = Annotated[Ident, msgspec.Meta(extra={"ref": "character"})]
"""A field naming a character of the table. The ``ref`` marker (msgspec
keeps it out of the JSON Schema) tells the command catalogue to offer the
table's characters by name; a new character's id is a plain ``Ident``."""
# What a command leaves untyped because its shape is the game's: the marker
# names the typed shape the command catalogue describes in its place.
Sheet = Annotated[dict[str, Any], msgspec.Meta(extra={"shape": "sheet"})]
FieldPath = Annotated[str, msgspec.Meta(min_length=1, max_length=128)]
ManualFaces = Annotated[list[Annotated[int, msgspec.Meta(ge=1, le=20)]], msgspec.Meta(max_length=64)]
ManualLots = Annotated[list[Annotated[int, msgspec.Meta(ge=0, le=15)]], msgspec.Meta(max_length=16)]
Nonce = Annotated[
    str,
    msgspec.Meta(
        min_length=32,
        max_length=32,
        pattern=whole("[0-9a-f]+"),
        description="16 random bytes of the rolling client, as 32 lowercase hex digits (docs/dice.md).",
    ),
]
"""A client's contribution to the dice of its command: the server has
committed to its seed before it sees the nonce, and the client never sees
the seed, so neither can aim a face."""
ManualDice = Annotated[
    bool,
    msgspec.Meta(
        description=(
            "The GM, and only the GM, may submit the faces rolled at the table (and, in Pain & "
            "Mettle, the Cast Lots drawn) instead of the server rolling."
        )
    ),
]
"""The table option every game has: its type and words are defined once here."""


class Command(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, tag_field="type"):
    """Base of every command; concrete classes set ``tag``."""


class Rolls(Command, kw_only=True):
    """A command that rolls dice. With table option ``manual_dice`` the GM may
    give ``faces`` (and ``lots`` for a drawn Cast Lot) instead of the server
    rolling; they are consumed in the order the rules draw them. ``nonce``
    is the sending client's entropy, mixed into every die the command rolls
    (``docs/dice.md``); the client library sends one by default."""

    faces: ManualFaces | None = None
    lots: ManualLots | None = None
    nonce: Nonce | None = None


class AddCharacter(Command, kw_only=True, tag="character.add"):
    """``sheet`` holds the game's character fields; omitted ones take the
    game's defaults, and the whole is validated like a correction."""

    id: Ident
    sheet: Sheet = {}


class RemoveCharacter(Command, kw_only=True, tag="character.remove"):
    char: CharId


class Correct(Command, kw_only=True, tag="correct"):
    """Set one field to a valid value (the common rule "Corrections and
    revive"). ``char`` None means a table-level field (for example DRYH's
    coins). ``field`` is a dotted path; list items are named by index
    (``injuries.0.penalty``)."""

    char: CharId | None = None
    field: FieldPath
    value: Annotated[Any, msgspec.Meta(extra={"shape": "correctable"})]


class Revive(Command, kw_only=True, tag="revive"):
    """Bring a character out of a final state into the state the GM gives."""

    char: CharId
    fields: Annotated[dict[str, Any], msgspec.Meta(extra={"shape": "revive"})]


class CombatStart(Command, kw_only=True, tag="combat.start"):
    pass


class CombatEnd(Command, kw_only=True, tag="combat.end"):
    pass


class NextRound(Command, kw_only=True, tag="combat.next_round"):
    pass


COMMON_COMMANDS: tuple[type[Command], ...] = (
    AddCharacter,
    RemoveCharacter,
    Correct,
    Revive,
    CombatStart,
    CombatEnd,
    NextRound,
)
