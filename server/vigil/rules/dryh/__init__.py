"""Don't Rest Your Head with the "Mortal Coils" house rules (DRYH-01…DRYH-25).

The rule text is ``shared/rules/dryh.md``; each module here holds one concept
of it (a roll's phases, reading the dice, dominance, coins, consequences,
recovery, the session) and names the rule ids it implements.
"""
