"""A long run of the demo dashboard: does its memory stay flat, and what does it cost?

``envtui demo`` runs in a pseudo-terminal of 120x40 for ``--minutes`` (60 by default); its
RSS and CPU time are sampled every ``--every`` seconds. Printed: each sample, then the RSS
at five minutes and at the end with the change between them (the budget: within 10 %),
the growth per hour after five minutes, and the CPU share over the run. The demo is never
idle (its hosts drop and come back, a step every two seconds); the idle budget is
``bench_idle.py``'s. The default bounds take about 35 minutes (1,000 steps) and 65
minutes (10,000 log lines) to fill at the demo's pace, and memory grows a little until
they are full (the records are small: about 3 MB at the full bounds); ``--config`` with
smaller ``event_log_lines`` and ``step_history`` shows the plateau sooner. A shorter run
extrapolates the growth rate; say so when quoting it.
Run: ``python benchmarks/bench_soak.py [--minutes 60]``.
"""

from __future__ import annotations

import argparse
import time

from terminal import PtyDashboard

SETTLED = 300.0  # seconds: the first five minutes are not held to the budget


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--every", type=float, default=60.0)
    parser.add_argument(
        "--config", metavar="F", help="a config for the demo (smaller bounds fill sooner)"
    )
    args = parser.parse_args()
    samples: list[tuple[float, int, float]] = []  # seconds, RSS, CPU seconds
    command = ["demo", *(["--config", args.config] if args.config else [])]
    with PtyDashboard(command) as dashboard:
        start = time.monotonic()
        while (elapsed := time.monotonic() - start) < args.minutes * 60:
            samples.append((elapsed, dashboard.rss(), dashboard.cpu_seconds()))
            print(f"{elapsed / 60:6.1f} min  RSS {samples[-1][1] / 2**20:6.1f} MB", flush=True)
            time.sleep(args.every)
        samples.append((time.monotonic() - start, dashboard.rss(), dashboard.cpu_seconds()))
    settled = next((s for s in samples if s[0] >= SETTLED), samples[0])
    end = samples[-1]
    change = (end[1] - settled[1]) / settled[1]
    hours = max(end[0] - settled[0], 1.0) / 3600
    print(
        f"RSS at {settled[0] / 60:.0f} min: {settled[1] / 2**20:.1f} MB, at the end "
        f"({end[0] / 60:.0f} min): {end[1] / 2**20:.1f} MB, change {change:+.1%} (budget 10 %)"
    )
    print(
        f"growth after {settled[0] / 60:.0f} min: "
        f"{(end[1] - settled[1]) / 2**20 / hours:+.1f} MB per hour"
    )
    print(
        f"CPU over the run: {(end[2] - samples[0][2]) / (end[0] - samples[0][0]):.2%} of one core"
    )


if __name__ == "__main__":
    main()
