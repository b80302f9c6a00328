"""Hostile peers and stuck outputs: envtui's peak memory, and how fast a signal ends it.

Each case runs ``envtui`` as its own process against a peer that misbehaves, next to the
same command against a well-behaved peer, and prints both peak RSS values and their ratio
(a bounded reader stays near 1x however long the peer keeps going):

* an SSH host whose probe output never ends, against one that answers the probe;
* an exec-server that floods requests and never reads the answers, against a normal one.

Then, for every case that used to hang, the seconds from SIGTERM to the process's exit:
a request flood, a codex app-server flooding notifications or never answering the
handshake, an output pipe nobody reads,
an environment that never answers ``initialize`` (snapshot, check), a 50 MB parse in
``render``; and the seconds a full disk (a 64 KiB tmpfs, when this user may mount one)
takes to end ``events`` on its own. Run: ``python benchmarks/bench_hostile.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import asyncssh
import psutil

ENVTUI = [sys.executable, "-m", "envtui"]
EXEC_SERVER = r"""
import json, sys
mode = sys.argv[1]
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    m = json.loads(line)
    if mode == "silent":
        continue
    if m.get("method") == "initialize":
        send({"id": m["id"], "result": {}})
    elif m.get("method") == "environment/info":
        send({"id": m["id"], "result": {"shell": {"name": "sh", "path": "/bin/sh"}}})
        while mode == "requests":
            send({"id": 7, "method": "server/ask", "params": {"pad": "x" * 100}})
"""
APP_SERVER = r"""
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("id") is None:
        continue
    if m.get("method") == "thread/start":
        thread = {"thread": {"id": "t", "environments": []}}
        sys.stdout.write(json.dumps({"id": m["id"], "result": thread}) + "\n")
        while True:
            sys.stdout.write(json.dumps({"method": "noise", "params": {"pad": "x" * 200}}) + "\n")
    sys.stdout.write(json.dumps({"id": m["id"], "result": {}}) + "\n"); sys.stdout.flush()
"""


def peak_rss(argv: list[str], cwd: Path, seconds: float, **popen: object) -> tuple[float, int]:
    """Run ``envtui ARGV`` for at most ``seconds`` (then SIGTERM); (peak MiB, exit code)."""
    process = subprocess.Popen([*ENVTUI, *argv], cwd=cwd, stderr=subprocess.DEVNULL, **popen)  # type: ignore[call-overload]
    watched = psutil.Process(process.pid)
    peak, deadline = 0, time.monotonic() + seconds
    while process.poll() is None and time.monotonic() < deadline:
        try:
            peak = max(peak, watched.memory_info().rss)
        except psutil.Error:
            break
        time.sleep(0.05)
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    code = process.wait(timeout=60)
    return peak / 2**20, code


def seconds_to_exit(argv: list[str], cwd: Path, after: float, **popen: object) -> float:
    """Start ``envtui ARGV``, SIGTERM it after ``after`` seconds; seconds until it exited."""
    process = subprocess.Popen([*ENVTUI, *argv], cwd=cwd, stderr=subprocess.DEVNULL, **popen)  # type: ignore[call-overload]
    time.sleep(after)
    sent = time.monotonic()
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=120)
    return time.monotonic() - sent


def exec_server_config(directory: Path, mode: str) -> Path:
    script = directory / "exec_server.py"
    script.write_text(EXEC_SERVER)
    config = directory / f"exec-{mode}.toml"
    config.write_text(
        '[[environments]]\nid = "x"\nkind = "exec-server"\ncwd = "/tmp"\n'
        f'program = "{sys.executable}"\nargs = ["{script}", "{mode}"]\n'
        "initialize_timeout = 3\nbackoff_initial = 0.5\nbackoff_max = 1\n"
    )
    return config


# --- SSH hosts, served by a separate process -------------------------------------------------


async def _serve(directory: Path) -> None:
    host_key = asyncssh.generate_private_key("ssh-ed25519")
    client_key = asyncssh.generate_private_key("ssh-ed25519")
    client_key.write_private_key(str(directory / "client_key"))
    authorized = asyncssh.import_authorized_keys(client_key.export_public_key().decode())

    def answering(endless: bool) -> Callable[[asyncssh.SSHServerProcess[str]], Awaitable[None]]:
        async def answer(process: asyncssh.SSHServerProcess[str]) -> None:
            while endless:
                process.stdout.write("z" * 65536)
                await process.stdout.drain()
            process.stdout.write("/bin/sh\n/tmp\n")
            process.exit(0)

        return answer

    ports: dict[str, int] = {}
    for name in ("endless", "normal"):
        server = await asyncssh.create_server(
            asyncssh.SSHServer, "127.0.0.1", 0, server_host_keys=[host_key],
            authorized_client_keys=authorized, process_factory=answering(name == "endless"),
        )  # fmt: skip
        ports[name] = server.sockets[0].getsockname()[1]
    algorithm, blob = host_key.export_public_key().decode().split()[:2]
    known = "".join(f"[127.0.0.1]:{port} {algorithm} {blob}\n" for port in ports.values())
    (directory / "known_hosts").write_text(known)
    for name, port in ports.items():
        (directory / f"ssh-{name}.toml").write_text(
            '[[environments]]\nid = "h"\nkind = "ssh"\ncwd = "/tmp"\nhost = "127.0.0.1"\n'
            f'port = {port}\nuser = "u"\nidentity_files = ["{directory}/client_key"]\n'
            f'known_hosts = "{directory}/known_hosts"\n'
            "connect_timeout = 10\n"
        )
    (directory / "ready").write_text("ready")
    await asyncio.Event().wait()


def ssh_servers(directory: Path) -> subprocess.Popen[bytes]:
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(directory)])
    deadline = time.monotonic() + 30
    while not (directory / "ready").exists():
        if time.monotonic() > deadline:
            raise RuntimeError("the SSH servers did not start")
        time.sleep(0.1)
    return server


# --- the report ------------------------------------------------------------------------------


def compare(label: str, argv: list[str], hostile: Path, normal: Path, seconds: float) -> None:
    """Peak RSS of ``envtui ARGV --config`` against the hostile and the normal peer."""
    quiet = {"stdout": subprocess.DEVNULL}
    bad, _ = peak_rss([*argv, "--config", str(hostile)], hostile.parent, seconds, **quiet)
    good, _ = peak_rss([*argv, "--config", str(normal)], normal.parent, seconds, **quiet)
    print(f"  {label:<38} {bad:7.1f}  {good:7.1f}  {bad / good:5.2f}x")


def memory(directory: Path, seconds: float) -> None:
    print(f"peak RSS over {seconds:g} s (MiB)         hostile    normal   ratio")
    endless, answering = directory / "ssh-endless.toml", directory / "ssh-normal.toml"
    server = ssh_servers(directory)
    try:
        snapshot = ["snapshot", "--timeout", str(seconds)]
        compare("endless SSH probe output (snapshot)", snapshot, endless, answering, seconds)
        compare("endless SSH probe output (events)", ["events"], endless, answering, seconds)
    finally:
        server.terminate()
        server.wait()
    flood = exec_server_config(directory, "requests")
    compare(
        "exec-server request flood (events)",
        ["events"],
        flood,
        exec_server_config(directory, "normal"),
        seconds,
    )


def hang_cases(directory: Path, blocked: int) -> list[tuple[str, list[str], float, object]]:
    """(label, argv, seconds before SIGTERM, stdout) for every case that used to hang."""
    app = directory / "app_server.py"
    app.write_text(APP_SERVER)
    codex = directory / "codex"
    codex.write_text(f'#!/bin/sh\nexec {sys.executable} {app} "$@"\n')
    codex.chmod(0o755)
    silent_codex = directory / "silent-codex"
    silent_codex.write_text("#!/bin/sh\nexec sleep 600\n")
    silent_codex.chmod(0o755)
    big = directory / "big.json"
    entries = ",".join(f'{{"id": "e{n}", "cwd": "/{"x" * 400}"}}' for n in range(100_000))
    big.write_text(f'{{"environments": [{entries}]}}')
    flood = str(exec_server_config(directory, "requests"))
    silent = str(exec_server_config(directory, "silent"))
    quiet = subprocess.DEVNULL
    return [
        ("exec-server request flood (events)", ["events", "--config", flood], 5, quiet),
        ("app-server notification flood (events --codex)",
         ["events", "--codex", str(codex), "--cwd", str(directory)], 5, quiet),
        ("app-server that never answers (events --codex)",
         ["events", "--codex", str(silent_codex), "--cwd", str(directory)], 2, quiet),
        ("output pipe nobody reads (events)", ["events", "--config", flood], 5, blocked),
        ("initialize never answered (snapshot)",
         ["snapshot", "--config", silent, "--timeout", "600"], 2, quiet),
        ("initialize never answered (check)",
         ["check", "--config", silent, "--steps", "99"], 2, quiet),
        ("a 50 MB parse (render)", ["render", str(big), "--json"], 1, quiet),
    ]  # fmt: skip


def signals(directory: Path) -> None:
    print("seconds from SIGTERM to exit")
    read_end, write_end = os.pipe()  # a pipe nobody reads
    try:
        for label, argv, after, stdout in hang_cases(directory, write_end):
            print(f"  {label:<48} {seconds_to_exit(argv, directory, after, stdout=stdout):6.2f}")
    finally:
        os.close(read_end)
        os.close(write_end)
    full_disk(directory)


def full_disk(directory: Path) -> None:
    tiny = directory / "tiny"
    tiny.mkdir()
    if subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(tiny)], capture_output=True
    ).returncode:
        print("  a full disk: skipped (cannot mount a tmpfs here)")
        return
    config = directory / "restarting.toml"
    config.write_text("".join(
        f'[[environments]]\nid = "x{n}"\nkind = "exec-server"\ncwd = "/tmp"\nprogram = "/bin/sh"\n'
        f'args = ["-c", "echo not-json"]\nbackoff_initial = 0.1\nbackoff_max = 0.2\n\n'
        for n in range(40)
    ))  # fmt: skip
    try:
        started = time.monotonic()
        argv = ["events", "--config", str(config), "--out", str(tiny / "e.jsonl")]
        done = subprocess.run([*ENVTUI, *argv], capture_output=True, timeout=120)
        print(
            f"  a disk that fills mid-stream ends events by itself (exit {done.returncode}) "
            f"in {time.monotonic() - started:.2f} s"
        )
    finally:
        subprocess.run(["umount", "-l", str(tiny)], check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--seconds", type=float, default=10.0, help="how long each memory case runs"
    )
    parser.add_argument("--serve", metavar="DIR", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(_serve(Path(args.serve)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        memory(Path(tmp), args.seconds)
        signals(Path(tmp))


if __name__ == "__main__":
    main()
