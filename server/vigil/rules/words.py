"""English renderings of event and error codes.

Clients localize codes themselves (the Foundry module's ``lang/en.json`` is
generated from these same templates, so there is one source of truth); the
server uses them for logs and the history export. Templates use
``str.format`` names, which is also the syntax of Foundry's
``game.i18n.format``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol


class Said(Protocol):
    """What a sentence is made from: an event's code, character and
    parameters (:class:`vigil.rules.outcome.Event` has them). A protocol, so
    that the words depend on nothing and the events may use them."""

    @property
    def code(self) -> str: ...

    @property
    def char(self) -> str | None: ...

    @property
    def params(self) -> dict[str, Any]: ...


_EVENTS: dict[str, str] = {
    "character_added": "{name} joins the table.",
    "character_removed": "{name} leaves the table.",
    "corrected": "The GM sets {field} of {target} to {value}.",
    "revived": "The GM revives {char}.",
    "combat_started": "Combat starts.",
    "combat_ended": "Combat ends.",
    "round_advanced": "Round {round} begins.",
}

_ERRORS: dict[str, str] = {
    "dice_too_few": "Not enough dice faces were given ({given}).",
    "dice_too_few_lots": "Not enough lots were given ({given}).",
    "dice_too_many": "{given} faces were given but only {used} were needed.",
    "dice_bad_face": "A face of {face} does not fit a {sides}-sided die.",
    "dice_bad_lot": "Lot number {index} does not exist.",
    "manual_dice_off": "This table rolls its own dice; turn on manual dice to submit faces.",
    "manual_dice_gm_only": "Only the GM may submit dice faces.",
    "unknown_character": "There is no character {char}.",
    "character_exists": "A character with id {id} already exists.",
    "bad_field": "{field} is not a field that can be set.",
    "no_change": "That changes nothing for {char}.",
    "options_unchanged": "Those are the table's options already; nothing changed.",
    "bad_value": "{value} is not a valid value for {field}: {reason}.",
    "bad_options": "{field}: {reason}.",
    "not_final": "{char} is not departed, dead, insane or a nightmare; use a correction.",
    "final_state": "{char} is {status}; only a GM correction or revive changes that.",
    "clock_backwards": "The clock never goes backwards ({now} to {to}).",
    "advance_too_large": "Advancing the clock that far would apply more than {limit} effects.",
    "already_in_combat": "The table is already in combat.",
    "not_in_combat": "The table is not in combat.",
    "wrong_system": "This command belongs to another game.",
}


def register(events: Mapping[str, str], errors: Mapping[str, str]) -> None:
    """Add a game's templates; each game module calls this once at import."""
    _EVENTS.update(events)
    _ERRORS.update(errors)


class _Lenient(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _render(template: str | None, code: str, params: Mapping[str, Any]) -> str:
    if template is None:
        rest = ", ".join(f"{k}={v!r}" for k, v in params.items())
        return f"{code}({rest})"
    # A list reads as its items joined, as the clients' words.js format does.
    listed = {k: ", ".join(map(str, v)) if isinstance(v, list | tuple) else v for k, v in params.items()}
    for spoken in _SPOKEN:  # choice codes made to be read: "fails_on_a_fail_lot"
        if isinstance(value := params.get(spoken), str):
            listed[spoken] = value.replace("_", " ")
    if isinstance(counts := params.get("counts"), Mapping):
        listed["counts"] = counted(counts)
    # Things without a name of their own travel as what they are, so that
    # each reader says them in their language (the clients' VIGIL.Param.*):
    # a correction of the table itself has no target character, an unnamed
    # poison or drug is called by its kind.
    if "target" in params and params["target"] is None:
        listed["target"] = "the table"
    if params.get("called") == "" and isinstance(kind := params.get("kind"), str):
        listed["called"] = f"the {kind}"
    return template.format_map(_Lenient(listed))


# Params whose values are choice codes spelled as the English words they
# stand for (a check's ``outcome``, a dim-light roll's ``sight``, the
# ``senses`` left): read with their underscores as spaces. The clients
# word them from lang/en.json (VIGIL.Choice.<param>.<value>).
_SPOKEN = ("outcome", "sight", "senses", "exhaustion_choice")


# Things whose count of 0 is said rather than left out.
_NONE = {"madness_dice": "no madness dice"}


def counted(counts: Mapping[str, Any]) -> str:
    """``{"wounds": 8, "shocks": 1}`` as people say it: "8 wounds and 1
    shock", counts of 0 left out, "no harm" when nothing is left (the
    clients' core/words.js says it the same way from lang/en.json)."""
    said: list[str] = []
    for name, n in counts.items():
        words = name.replace("_", " ")
        if not n:
            if name in _NONE:
                said.append(_NONE[name])
            continue
        one = words[: -len("dice")] + "die" if words.endswith("dice") else words[:-1]
        said.append(f"{n} {one if n == 1 else words}")
    if not said:
        return "no harm"
    return said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]


def english(event: Said) -> str:
    """One English sentence for an event, for logs and the history export."""
    params = {"char": event.char, **event.params}
    return _render(_EVENTS.get(event.code), event.code, params)


def english_error(code: str, params: Mapping[str, Any]) -> str:
    return _render(_ERRORS.get(code), code, params)


def catalogue() -> tuple[dict[str, str], dict[str, str]]:
    """Every known template, for generating client language files."""
    return dict(_EVENTS), dict(_ERRORS)
