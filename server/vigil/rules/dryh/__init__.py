"""Don't Rest Your Head with the "Mortal Coils" house rules (DRYH-01…DRYH-25).

``rule_book.py`` says what the engine does for each rule and lists every
Decision (``docs/rules/dryh.md`` is generated from it); each other module
holds one concept (a roll's phases, reading the dice, dominance, coins,
consequences, recovery, the session) and names the rule ids it implements.
"""
