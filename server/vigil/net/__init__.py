"""The network edge, a module per job around a whole table:

- :mod:`~vigil.net.connection`: one connection's loop (hello, rate limit,
  decoding, error answers); :mod:`~vigil.net.admission`: who is let in
  (pure: the hello read, a table's places, the connection a reconnect
  replaces);
- :mod:`~vigil.net.routing`: a request's address (pure: its table, the key
  that names it across reconnects, where it goes from a connection here);
  :mod:`~vigil.net.requests`: what each request does (operator, admin,
  rules and table commands, history pages, legal moves);
- :mod:`~vigil.net.writer`: the one path by which a table changes (lock,
  change, commit, ack, fan-out, timer), admin changes included;
- :mod:`~vigil.net.committer`: commit groups and snapshots;
- :mod:`~vigil.net.fanout`: patches and snapshots to connections, the replay
  buffer, the watchdog of slow clients;
- :mod:`~vigil.net.timers`: timers; :mod:`~vigil.net.presence`: what a
  clock does as GMs come and go (pure);
- :mod:`~vigil.net.hub`: the tables in memory, composing
  :mod:`~vigil.net.access` (tokens, keys, who may connect),
  :mod:`~vigil.net.watching` (who watches which table) and
  :mod:`~vigil.net.history_reads` (a table's log read back);
- :mod:`~vigil.net.host`, :mod:`~vigil.net.errors`: a hosted table and a
  connection (the port it is sent through: this node's socket or another
  node); refusals;
- :mod:`~vigil.net.placement`, :mod:`~vigil.net.relay`: the ports to where
  tables are served and to other nodes' connections, each with its
  implementation for a node alone; :mod:`~vigil.net.storage`: every store
  call, on the loop or in a thread;
- :mod:`~vigil.net.cluster` (the driver: following other nodes' tables),
  :mod:`~vigil.net.ownership` (leases, sweeps, beacons),
  :mod:`~vigil.net.remote_peers` (the owner's side: other nodes'
  connections to its tables, its relay), :mod:`~vigil.net.forwarding`
  (requests sent to other nodes' tables, until answered),
  :mod:`~vigil.net.follower`
  (the pure state machine for another node's table), :mod:`~vigil.net.bus`,
  :mod:`~vigil.net.cluster_wire`: a node of a cluster;
- :mod:`~vigil.net.app`, :mod:`~vigil.net.http`: starting and stopping (the
  composition root), plain HTTP; the settings are :mod:`vigil.config`;
- :mod:`~vigil.net.metrics`: what ``/metrics`` counts (on a listener of
  its own, when the operator gives it a port).

The table itself (its views, patches and rollback) is :mod:`vigil.table`;
it knows nothing of connections or the store.
"""
