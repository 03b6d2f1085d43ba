"""English templates for every Pain & Mettle event and error code."""

from __future__ import annotations

from vigil.rules import words

EVENTS: dict[str, str] = {
    "pain_taken": "{char} takes {amount} pain (now {pain}).",
    "tym": "{char} tests their mettle with {total} against pain {tn} and {outcome}.",
    "fell_unconscious": "{char} falls unconscious.",
    "began_dying": "{char} is dying; the spirit departs at {departs_at}.",
    "stabilized": "{char} is stabilized by {by}; the spirit stays until {departs_at}.",
    "departed": "{char}'s spirit has departed ({cause}).",
    "regained_consciousness": "{char} regains consciousness.",
    "no_longer_dying": "{char} is no longer dying but stays unconscious.",
    "healing_wasted": "Healing of {amount} on {char} is wasted: not yet stabilized.",
    "healed": "{char} is healed of {healed} pain (now {pain}).",
    "rattle_received": "{char} is rattled by {amount} (now {rattle}).",
    "rattle_relieved": "{char} is relieved of {removed} rattle (now {rattle}).",
    "rattle_shaken": "{char} stands still and shakes off {removed} rattle (now {rattle}).",
    "effort_spent": "{char} spends {effort} effort, shaking {removed} rattle (now {rattle}).",
    "rattle_gone": "{char} is no longer rattled.",
    "injury_added": "{char} suffers an injury: {label} (penalty {penalty}).",
    "injury_removed": "{char}'s injury {label} is gone.",
    "injury_reduced": "{char}'s injury {label} eases to penalty {penalty}.",
    "check": "{char} checks {total} against TN {tn} and {outcome}.",
    "stabilize_attempt": (
        "{helper} tries to stabilize {char} with {discipline}: {total} against TN {tn} and "
        "{outcome}; busy until {busy_until}."
    ),
    "rest_started": "{char} starts resting.",
    "rest_stopped": "{char} stops resting (full hours rested: {hours}).",
    "rest_interrupted": "{char}'s rest is interrupted ({reason}); the hour and respite restart.",
    "rest_hour": "{char} rests an hour (hour {hour}); pain now {pain}.",
    "rest_hour_wasted": "{char} rests an hour, but dying unstabilized recovers nothing.",
    "respite": "{char} gains a respite: every injury eases by one.",
    "kit_set": "{char}'s kit {kit} now has {uses} left.",
    "discipline_set": "{char}'s {discipline} is now {level}.",
}

ERRORS: dict[str, str] = {
    "tn_required": (
        "The GM sets the TN of a stabilize attempt on {char} "
        "(or the table's default TN for stabilize attempts)."
    ),
    "cannot_act": "{char} is {status} and cannot act.",
    "helper_busy": "{char} is still busy stabilizing until {until}.",
    "no_kit_uses": "{char} has no uses of kit {kit} left.",
    "not_dying": "{char} is not dying.",
    "already_stabilized": "{char} is already stabilized.",
    "not_resting": "{char} is not resting.",
    "already_resting": "{char} is already resting.",
    "not_rattled": "{char} is not rattled.",
    "unknown_injury": "{char} has no injury {injury}.",
    "bad_state": "Inconsistent state for {char}: {reason}.",
    "limit_reached": "{char} already has the most {what} allowed ({limit}).",
}

words.register(EVENTS, ERRORS)
