"""English templates for every DRYH event and error code."""

from __future__ import annotations

from vigil.rules.words import register

EVENTS = {
    "roll_opened": "The GM opens a challenge for {char}: pain dice {pain} ({kind}).",
    "roll_cancelled": "The GM withdraws {char}'s challenge.",
    "roll_declared": "{char} declares {counts}, {exhaustion_choice}, {talent}.",
    "helper_joined": "{char} helps {owner}.",
    "helper_left": "{char} stops helping {owner}.",
    "roll_rolled": ("{char} rolls: successes {successes} against the GM's {degree}; {dominant} dominates."),
    "exhaustion_raised": "{char}'s exhaustion goes from {before} to {after}.",
    "crashed": "{char} crashes (exhaustion {exhaustion}).",
    "despair_spent": ("The GM spends despair to {op} a 6 in {char}'s {pool} pool; {dominant} dominates now."),
    "hope_improved": "Hope adds a 1 to {char}'s discipline: successes now {successes}.",
    "roll_resolved": (
        "{char}'s roll is a {outcome}: {successes} against the GM's {degree}; {dominant} dominates."
    ),
    "choice_pending": "{char} must choose a {kind} consequence.",
    "discipline_chosen": "{char} chooses: {choice}.",
    "response_checked": "{char} checks a {response} response ({checked} checked).",
    "snapped": "{char} snaps: discipline {discipline}, madness {madness}.",
    "became_nightmare": "{char} has lost all discipline and becomes a Nightmare.",
    "despair_paid": "Pain dominates: a coin goes into despair for {char} ({despair} now).",
    "despair_withheld": ("Pain dominates only through the GM's despair: no coin is paid for {char}'s roll."),
    "roll_closed": "{char}'s roll is over.",
    "hope_spent": "Hope removes {what} from {char} ({before} to {after}).",
    "discipline_recovered": ("{char} spends {cost} hope: discipline {discipline}, madness {madness}."),
    "woke": "The GM wakes {char}: exhaustion {exhaustion}.",
    "snap_cleared": "{char} is no longer snapped.",
    "session_started": "Session {number} starts: the GM gains {gained} despair ({despair}).",
    "session_ended": "Session {number} ends; {hope_cleared} hope is cleared.",
}

ERRORS = {
    "crashed": "{char} has crashed; the GM must wake them first.",
    "in_another_roll": "{char} already takes part in {owner}'s roll.",
    "no_open_roll": "{char} has no open roll.",
    "wrong_phase": "{char}'s roll is {phase}; this needs it to be one of: {expected}.",
    "exhaustion_up_once": "Exhaustion can be increased only once per roll.",
    "talent_needs_exhaustion": "Minor use of an exhaustion talent needs exhaustion of 1 or more.",
    "talent_needs_madness": "A madness talent needs 1 to 6 temporary madness dice.",
    "not_helping": "{char} is not helping {owner}.",
    "help_nightmare_challenge": "Nobody may help against a nightmare challenge (house rule).",
    "too_many_helpers": "A roll has at most {limit} helpers.",
    "no_despair": "The GM has no despair coin to spend.",
    "no_six": "The {pool} pool has no 6 to remove.",
    "pool_full": "The {pool} pool cannot hold more than {limit} dice.",
    "no_hope": "There is no hope coin to spend.",
    "failure_consequences_off": "Failure consequences are off at this table.",
    "roll_succeeded": "The roll succeeded; there is no failure consequence.",
    "failure_same_kind": "The failure consequence cannot be the kind that dominated ({dominant}).",
    "response_full": "{char}'s {response} responses are all checked; check the other one.",
    "no_pending_choice": "{char} has no choice to make in {owner}'s roll.",
    "bad_choice": "{choice} is not a {kind} choice.",
    "nothing_to_remove": "{char} cannot lose {what}: there is none.",
    "no_madness": "{char} has no permanent madness to remove.",
    "not_enough_hope": "That costs {cost} hope; the table has {hope}.",
    "not_crashed": "{char} has not crashed.",
    "not_snapped": "{char} has not snapped.",
    "session_active": "Session {number} is already running.",
    "no_session": "No session is running.",
    "character_in_roll": "{char} takes part in an open roll; resolve or cancel it first.",
    "too_many_checks": "{char} has more checked responses than the table's {boxes} boxes.",
    "bad_roll": "The open roll of {char} is not consistent: {reason}.",
    "nothing_due": "DRYH has no timed effects.",
}

register(EVENTS, ERRORS)
