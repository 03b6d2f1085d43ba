"""The pure rules of the three games.

Nothing in this package does I/O, reads the wall clock, awaits, or touches
global random state: a table state and a command go in, a new table state and
a list of events come out. The server is only a carrier for what this package
decides, so everything here is testable without sockets and with seeded dice.
"""
