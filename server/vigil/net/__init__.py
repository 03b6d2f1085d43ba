"""The network edge: websockets server, HTTP routes, fan-out, timers."""
