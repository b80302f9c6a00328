"""What the demo's banner counts after a while: findings against incidents, side by side.

The embedded demo (in-process SSH servers on 127.0.0.1: ``flaky`` drops every 15 s and
comes back, ``ghost`` leaves for good after 8 s, ``build`` is replaced every turn) runs
headless into the dashboard's store for ``--seconds`` (default 600: ten minutes) at
``--step-interval`` (default 2 s, as ``envtui demo``). It runs in real time: the demo's
faults are paced by the wall clock (flaky's period, the SSH backoff), so running the steps
faster would change what is measured. It prints, from the same store:

* **findings**: every finding event, which the old banner counted (``⚠ N finding(s)``);
* **incidents**: held, active and unacknowledged (the banner now), and resolved;
* each incident key with its number of episodes and steps.

Run: ``python benchmarks/bench_demo_incidents.py [--seconds 600] [--step-interval 2]``.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections import Counter

from envtui.dashboard.store import Store
from envtui.sources.demo import run_demo


async def measure(seconds: float, step_interval: float) -> Store:
    store = Store()
    stop = asyncio.Event()
    task = asyncio.ensure_future(run_demo(store.apply, stop, step_interval=step_interval))
    try:
        await asyncio.sleep(seconds)
    finally:
        stop.set()
        await asyncio.wait({task}, timeout=30)
    return store


def report(store: Store, seconds: float) -> None:
    incidents = store.incidents.incidents()
    active = store.incidents.active()
    resolved = [i for i in incidents if i.state == "resolved"]
    print(f"after {seconds:.0f} s: {len(store.steps)} steps")
    print(f"findings (the old banner):         {store.counters['finding']}")
    print(f"incidents held:                    {len(incidents)}")
    print(f"active, unacknowledged (banner):   {len(active)}")
    print(f"resolved:                          {len(resolved)}")
    episodes: Counter[tuple[str, str]] = Counter()
    steps: Counter[tuple[str, str]] = Counter()
    for incident in incidents:
        key = (incident.code, incident.environment_id or incident.tool or "thread")
        episodes[key] += 1
        steps[key] += incident.steps
    for key in sorted(episodes):
        print(f"  {key[0]:<28} {key[1]:<14} {episodes[key]:>4} episode(s) {steps[key]:>5} step(s)")
    for incident in active:
        who = incident.environment_id or incident.tool or "thread"
        print(f"  active now: {incident.code} ({who}) since step {incident.first_step}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument("--step-interval", type=float, default=2.0)
    args = parser.parse_args()
    started = time.monotonic()
    store = asyncio.run(measure(args.seconds, args.step_interval))
    report(store, time.monotonic() - started)


if __name__ == "__main__":
    main()
