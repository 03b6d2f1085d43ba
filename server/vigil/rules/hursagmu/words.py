"""English templates for every Hursagmu event and error code."""

from __future__ import annotations

from vigil.rules import words

EVENTS: dict[str, str] = {
    "trait_rolled": "{char} rolls {trait} ({faces}): {total} against {target}, dx {dx}.",
    "dim_light_check": (
        "{char} peers into the dim light ({faces}): {total} against {challenge} and {sight}."
    ),
    "senses_changed": "{char} is now {senses}.",
    "harmed": "{char} takes {counts}.",
    "resisted": "{char} resists {amount} damage with {trait}: takes {counts}.",
    "condition_started": "{char} is now {condition}.",
    "condition_ended": "{char} is no longer {condition}.",
    "rest_rolled": "{char} rests ({faces}): {total} against stuns {target}, now {after}.",
    "recovery_rolled": (
        "{char} recovers {track} with {trait} ({faces}): {total} against {target}, now {after}."
    ),
    "nothing_to_recover": "{char} wakes with nothing to recover.",
    "recovery_skipped": "{char} has already recovered today.",
    "rest_spoiled": "{char}'s rest was spoiled: no healing this morning.",
    "rest_terms_set": (
        "{char}'s rest tonight: wounds +{wound_difficulty}, shocks +{shock_difficulty}, spoiled {spoiled}."
    ),
    "healer_rolled": "{healer} tends {char} ({faces}): total {total}.",
    "level_healer_rolled": "A healer of level {level} tends {char} ({faces}): total {total}.",
    "poisoned": ("{char} is poisoned by {called}: damage {damage} every {interval}, doses {doses}."),
    "poison_dose": "A dose of {called} hits {char}: {counts}.",
    "poison_fought_off": "{char} has fought off {called}.",
    "poison_stopped": "{called} no longer has any effect.",
    "fall_harmless": "{char} falls without harm (spaces: {spaces}).",
    "fall_declared": (
        "{char} falls {spaces} spaces ({damage} damage): break the fall with athlete or take it."
    ),
    "fall_broken": ("{char} tries to break the fall ({faces}): {total} against {target}, bonus {bonus}."),
}

ERRORS: dict[str, str] = {
    "unconscious": "{char} is unconscious and can do nothing.",
    "unknown_trait": "{char} has no trait {trait}.",
    "sense_lost": "Perception by {sense} is impossible ({reason}).",
    "no_harm": "No harm was given for {char}.",
    "no_stuns": "{char} has no stuns to rest off.",
    "already_recovered": "{char} has already recovered today (day {day}).",
    "rest_terms_other": "Rest terms were given for {char}, who is not waking.",
    "healer_choice": "Give either a healer character or a healer level, not both or neither.",
    "not_a_healer": "{char} has no healer trait.",
    "rest_spoiled": "{char}'s rest was spoiled today: no healing.",
    "recovery_first": "{char} must make today's recovery rolls before a healer's.",
    "already_healed": "{char} has already been healed today (day {day}).",
    "nothing_to_heal": "{char} has no wounds or shocks to heal.",
    "poison_too_short": "A duration of {duration} gives no dose every {interval}.",
    "too_many_doses": "{doses} doses is more than the limit of {limit}.",
    "fall_pending": "{char} is already falling ({spaces} spaces): break that fall or take it first.",
    "no_pending_fall": "{char} is not falling: the GM declares a fall first.",
    "falling": (
        "{char} is falling ({spaces} spaces) and can do nothing else: break the fall or take it first."
    ),
    "bad_poison": "A poison of {char} ({called}) is inconsistent: {reason}",
}

words.register(EVENTS, ERRORS)
