"""HUR-01…HUR-14: what the engine does for each rule, and every Decision.

The modules of this package name these ids; their docstrings point here for
the Decisions instead of restating them (see :mod:`vigil.rules.reference`).
"""

from __future__ import annotations

from vigil.rules.reference import Practice, Rule, RuleBook, Section

_ROLL = "vigil.rules.hursagmu.roll"
_CHECKS = "vigil.rules.hursagmu.checks"
_PENALTIES = "vigil.rules.hursagmu.penalties"
_CONDITIONS = "vigil.rules.hursagmu.conditions"
_GUARDS = "vigil.rules.hursagmu.guards"
_REST = "vigil.rules.hursagmu.rest"
_RECOVERY = "vigil.rules.hursagmu.recovery"
_HEALING = "vigil.rules.hursagmu.healing"
_RESISTANCE = "vigil.rules.hursagmu.resistance"
_HARM = "vigil.rules.hursagmu.harm"
_POISON = "vigil.rules.hursagmu.poison"
_FALLS = "vigil.rules.hursagmu.falls"

RULE_BOOK = RuleBook(
    game="hursagmu",
    title='Hursagmu — "Pain and Suffering"',
    prefix="HUR",
    source=(
        "Hursagmu's chapter \"Pain and Suffering\". Hursagmu's trait roll is 2d6 + trait against a "
        "target; a round is 6 seconds with two actions per character; a space is about 6 feet (2 m)."
    ),
    state=(
        "Each character has traits (free-form levels: constitution, willpower, perception, athlete, "
        "healer…), stuns, wounds and shocks (each 0 or more), lost senses (blind, deaf), its running "
        "poisons, and the days of its last natural recovery, healer's roll and spoiled rest."
    ),
    sections=(
        Section(
            title="Rolls",
            rules=(
                Rule(
                    id="HUR-01",
                    title="Trait roll",
                    does=(
                        "The total is 2d6 + trait + modifiers; the roll succeeds when the total is at "
                        "least the target, and its dx is total − target. Every rolling rule of the "
                        "chapter uses this one roll, and every event of a roll carries its faces."
                    ),
                    decisions=(
                        "A natural 12 always succeeds, with dx = max(1, total − target), as in the "
                        "chapter's worked example (a natural 12 with trait 6, 18 against 19, gives "
                        "dx 1).",
                        "A natural 2 always fails (from Hursagmu's overview, not this chapter).",
                    ),
                    code=(_ROLL, _CHECKS),
                ),
                Rule(
                    id="HUR-02",
                    title="Condition penalties",
                    does=(
                        "A seriously injured character takes −1 to physical actions per wound beyond "
                        "10; a delirious one −1 to mental actions, Perception included, per shock "
                        "beyond 10."
                    ),
                    decisions=(
                        "Recovery, resistance and healing rolls take none of these penalties (the "
                        "chapter's Juk rolls 7 + 6 = 13 at 19 wounds).",
                        "Breaking a fall (HUR-14) is a physical action, so the wound penalty applies "
                        "to its athlete roll.",
                    ),
                    code=(_PENALTIES, _CHECKS, _FALLS),
                ),
                Rule(
                    id="HUR-03",
                    title="Senses",
                    does=(
                        "An action that needs sight is at −4 when blind or in darkness, one that "
                        "needs hearing at −4 when deaf. Perception through a lost sense is refused. "
                        "In dim light the GM sets a challenge level; a Perception roll strictly "
                        "higher than it sees for that round."
                    ),
                    decisions=(
                        "Total darkness takes sight away from Perception as blindness does (refused, "
                        "not penalised); dim light is the challenge roll instead.",
                    ),
                    code=(_PENALTIES, _CHECKS),
                ),
            ),
        ),
        Section(
            title="Thresholds",
            intro=(
                "Every change to stuns, wounds or shocks ends by reporting the conditions gained and "
                "lost and rescheduling what the new condition implies (unconscious rest, poisons)."
            ),
            rules=(
                Rule(
                    id="HUR-04",
                    title="Stuns",
                    does=(
                        "With 10 stuns or more a character is unconscious: senseless and "
                        "defenseless, it can do nothing, so every command it would have to do itself "
                        "is refused. It is awake again as soon as stuns are below 10."
                    ),
                    code=(_CONDITIONS, _GUARDS),
                ),
                Rule(
                    id="HUR-05",
                    title="Wounds",
                    does=(
                        "More than 10 wounds: seriously injured. 20 or more: dead, a final state in "
                        "which no recovery or healing applies and every command naming the character "
                        "is refused."
                    ),
                    decisions=(
                        "A final state (dead here, insane under HUR-06) hides the other conditions: "
                        "a dead character is not also shown as unconscious, and reaching it is "
                        "reported alone.",
                    ),
                    code=(_CONDITIONS, _GUARDS),
                ),
                Rule(
                    id="HUR-06",
                    title="Shocks",
                    does=(
                        "More than 10 shocks: delirious. 20 or more: hopelessly insane, a final state "
                        "like death."
                    ),
                    code=(_CONDITIONS, _GUARDS),
                ),
            ),
        ),
        Section(
            title="Recovery",
            rules=(
                Rule(
                    id="HUR-07",
                    title="Resting off stuns",
                    does=(
                        "A character that gives up one action to rest rolls the higher of "
                        "constitution and willpower against its current stuns; on a success stuns "
                        "drop by dx (not below 0). Refused when it has no stuns."
                    ),
                    code=(_REST,),
                ),
                Rule(
                    id="HUR-08",
                    title="Unconscious rest",
                    does=(
                        "An unconscious character is resting and makes two recovery rolls per round: "
                        "in combat when the GM advances the round, out of combat every 6 seconds of "
                        "clock time from one round after it fell, never both for one round. If the "
                        "first roll takes stuns below 10 it wakes, no second roll is made, and it may "
                        "still take its second action that round."
                    ),
                    code=(_REST, _CONDITIONS, "vigil.rules.hursagmu.system"),
                ),
                Rule(
                    id="HUR-09",
                    title="Daily recovery",
                    does=(
                        "Once per day (day = ⌊clock / 86400⌋), when a character wakes from sleep, it "
                        "rolls constitution against its wounds and willpower against its shocks, "
                        "each only when above 0; a success lowers that value by dx. Waking is the "
                        "GM's morning command for one character or for all (those that already "
                        "recovered that day are skipped), or, with table option `wake_hour`, the "
                        "clock passing that hour of each day."
                    ),
                    options=("wake_hour",),
                    code=(_RECOVERY,),
                ),
                Rule(
                    id="HUR-10",
                    title="Rest conditions",
                    does=(
                        "The morning carries, per character, the rest it had: a difficulty increase "
                        "for the wound roll and one for the shock roll (less than comfortable "
                        "circumstances, light exertion, deep thinking), and whether strenuous "
                        "activity (fighting, spellcasting) spoiled it, which prevents all of that "
                        "morning's healing, the healer's included. The GM may set these terms during "
                        "the night; the next waking uses them up."
                    ),
                    code=(_RECOVERY, _HEALING),
                ),
                Rule(
                    id="HUR-11",
                    title="Healer",
                    does=(
                        "Once per day per patient, a healer (an awake character of the table with "
                        "the healer trait, or a healer level the GM gives for an NPC) rolls 2d6 + "
                        "healer once; that total is compared with wounds and with shocks separately, "
                        "and each success lowers that value by its own dx."
                    ),
                    decisions=(
                        "The roll comes after the patient's natural recovery of the day: it is "
                        "refused until the patient's morning has run that day (so the GM runs the "
                        "morning first), and after a spoiled rest (HUR-10).",
                    ),
                    code=(_HEALING,),
                ),
            ),
        ),
        Section(
            title="Harm from the environment",
            rules=(
                Rule(
                    id="HUR-12",
                    title="Resisting damage",
                    does=(
                        "Damage applied against constitution is resisted, and what gets through "
                        "becomes wounds. A bonus (armour, a shield) adds to constitution for the "
                        "resistance, but never against poison or falls."
                    ),
                    decisions=(
                        "The chapter leaves resisting to a combat chapter that is not part of the "
                        "source. Damage D is resisted with 2d6 + constitution + bonus against D, and "
                        "a failure takes max(0, D − total) wounds; with table option `resistance` "
                        "set to flat, the harm is max(0, D − (constitution + bonus)), with no dice.",
                    ),
                    options=("resistance",),
                    code=(_RESISTANCE, _HARM),
                ),
                Rule(
                    id="HUR-13",
                    title="Poison",
                    does=(
                        "A poison deals its damage at a fixed interval of clock time for a duration: "
                        "each dose of a poison is resisted with constitution and causes wounds, each "
                        "dose of a drug is resisted with willpower and causes shocks. After the last "
                        "dose the character has fought it off."
                    ),
                    decisions=(
                        "Doses fall at application + k × interval for k = 1 … ⌊duration / "
                        "interval⌋, so the whole schedule is fixed when the poison is applied; more "
                        "than 1,000 doses, or a duration shorter than one interval, is refused.",
                        "Each application is its own poison, so two applications stack.",
                        "A character that dies or goes insane loses its poisons: no effect applies "
                        "after a final state, and a revived character does not take the missed "
                        "doses all at once.",
                    ),
                    code=(_POISON, _CONDITIONS),
                ),
                Rule(
                    id="HUR-14",
                    title="Falls",
                    does=(
                        "A fall of fewer than 2 spaces does no damage; otherwise the damage is 2 × "
                        "spaces, at most 20 (3 spaces: 6; 8 spaces: 16), partial spaces rounding "
                        "down, resisted with constitution and no armour (HUR-12). An awake character "
                        "may first roll athlete against a challenge equal to the damage; on a "
                        "success its dx is added to constitution for resisting. The GM declares the "
                        "fall (hursagmu.fall); the fall then waits on the character as a pending "
                        "choice, made by its player (or the GM): hursagmu.break_fall rolls athlete "
                        "first, hursagmu.take_fall resists with constitution alone."
                    ),
                    decisions=(
                        "A fall too short to do damage asks for no athlete roll either: there is "
                        "nothing to break.",
                        "Breaking a fall is the falling character's roll, so its player chooses; "
                        "the GM may choose for an NPC or on the player's behalf, and with "
                        "manual_dice gives the faces.",
                        "An unconscious character cannot roll: its fall lands at once. A second "
                        "fall declared while one is pending is refused until the first is settled.",
                        "While its fall is pending the character does nothing else of its own: its "
                        "trait and dim-light rolls, a rest action and healing another are refused "
                        "(falling) until it breaks or takes the fall, as a DRYH character whose "
                        "choice is pending stays in its roll and can neither open nor join another "
                        "(DRYH-01, DRYH-03). What is done to it (the GM's harm, damage, poison, "
                        "senses, rest terms and morning) and the clock's effects still happen.",
                    ),
                    code=(_FALLS,),
                ),
            ),
        ),
    ),
    practices=(
        Practice(
            title="Harm dealt directly",
            does=(
                "The GM may deal stuns, wounds and shocks directly, with no resistance roll; the "
                "thresholds (HUR-04 … HUR-06) apply as for any other harm."
            ),
            code=(_HARM,),
        ),
        Practice(
            title="Traits the rules look up",
            does=(
                "The rules' own rolls read constitution, willpower, perception and athlete from the "
                "sheet. A trait roll the GM asks for by name is refused when the sheet lacks that "
                "trait, so that a typo never rolls at level 0."
            ),
            decisions=(
                "A trait the rules need that is not on the sheet counts as 0: a timed effect such as "
                "a poison dose cannot be refused for a missing number.",
            ),
            code=("vigil.rules.hursagmu.state", _CHECKS),
        ),
    ),
)
