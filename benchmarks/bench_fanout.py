"""Time to all-ready for N SSH hosts: envtui next to OpenSSH's ``ssh`` running the same probe.

A separate process serves N asyncssh servers on 127.0.0.1 (so neither client shares a
core's event loop with the servers). Then, against the same servers, it measures

* envtui: N ``SshEnvironment`` resolved concurrently by the manager, until the snapshot
  says every one is ready (connect, host-key check, auth, probe);
* OpenSSH: N ``ssh`` processes started in parallel, each running the same probe command,
  until all have exited successfully.

Each measurement is repeated (best kept), alternating which client goes first, and printed
with the ratio envtui / OpenSSH. Run: ``python benchmarks/bench_fanout.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import asyncssh

from envtui.environments.manager import EnvironmentManager
from envtui.environments.ssh import SshEnvironment, SshSettings
from envtui.environments.ssh_probe import probe_command
from envtui.steps.selection import Selection

SIZES = (10, 100, 300)


# --- the server process --------------------------------------------------------------------


async def _run_command(process: asyncssh.SSHServerProcess[str]) -> None:
    proc = await asyncio.create_subprocess_shell(
        process.command or "true", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await proc.communicate()
    process.stdout.write(out.decode())
    process.stderr.write(err.decode())
    process.exit(proc.returncode or 0)


async def serve(count: int, directory: Path) -> None:
    client_key = asyncssh.generate_private_key("ssh-ed25519")
    (directory / "client_key").write_bytes(client_key.export_private_key())
    (directory / "client_key").chmod(0o600)
    authorized = asyncssh.import_authorized_keys(client_key.export_public_key().decode())
    lines, servers, ports = [], [], []
    for _ in range(count):
        host_key = asyncssh.generate_private_key("ssh-ed25519")
        server = await asyncssh.create_server(
            asyncssh.SSHServer,
            "127.0.0.1",
            0,
            server_host_keys=[host_key],
            authorized_client_keys=authorized,
            process_factory=_run_command,
        )
        port = server.sockets[0].getsockname()[1]
        public = host_key.export_public_key().decode().split()[:2]
        lines.append(f"[127.0.0.1]:{port} {' '.join(public)}\n")
        servers.append(server)
        ports.append(port)
    (directory / "known_hosts").write_text("".join(lines))
    print(json.dumps({"ports": ports}), flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until stdin closes
    for server in servers:
        server.close()


# --- the two clients ---------------------------------------------------------------------------


async def envtui_all_ready(ports: list[int], directory: Path, cwd: str) -> float:
    manager = EnvironmentManager(lambda event: None)
    for index, port in enumerate(ports):
        settings = SshSettings(
            host="127.0.0.1",
            port=port,
            user="bench",
            identity_files=(str(directory / "client_key"),),
            known_hosts=(str(directory / "known_hosts"),),
            read_ssh_config=False,
            use_agent=False,
            keepalive_interval=30,
        )
        manager.register(SshEnvironment(f"h{index}", cwd, settings))
    start = time.perf_counter()
    manager.update_selections([Selection(f"h{index}", cwd) for index in range(len(ports))])
    snapshot = await manager.snapshot_blocking(timeout=300)
    elapsed = time.perf_counter() - start
    failed = [e.error for e in snapshot.entries if e.state != "ready"]
    await manager.aclose()
    if failed:
        raise RuntimeError(f"envtui: {len(failed)} not ready, e.g. {failed[0]}")
    return elapsed


async def openssh_all_ready(ports: list[int], directory: Path, cwd: str) -> float:
    command = probe_command(cwd)

    async def one(port: int) -> None:
        proc = await asyncio.create_subprocess_exec(
            "ssh", "-F", "/dev/null", "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes",
            "-o", "IdentityAgent=none", "-i", str(directory / "client_key"),
            "-o", f"UserKnownHostsFile={directory / 'known_hosts'}",
            "-o", "GlobalKnownHostsFile=/dev/null", "-o", "StrictHostKeyChecking=yes",
            "-p", str(port), "bench@127.0.0.1", command,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        out, err = await proc.communicate()
        if proc.returncode != 0 or cwd not in out.decode():
            raise RuntimeError(f"ssh to port {port} failed: {err.decode().strip()}")

    start = time.perf_counter()
    await asyncio.gather(*(one(port) for port in ports))
    return time.perf_counter() - start


async def measure(count: int, repeat: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        server = await asyncio.create_subprocess_exec(
            sys.executable, __file__, "--serve", str(count), str(directory),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        )  # fmt: skip
        assert server.stdout is not None
        assert server.stdin is not None
        ports = json.loads(await server.stdout.readline())["ports"]
        envtui_times: list[float] = []
        openssh_times: list[float] = []
        try:
            for round_number in range(repeat):
                clients = [envtui_all_ready, openssh_all_ready]
                if round_number % 2:
                    clients.reverse()
                for client in clients:
                    elapsed = await client(ports, directory, tmp)
                    (envtui_times if client is envtui_all_ready else openssh_times).append(elapsed)
        finally:
            server.stdin.close()
            await server.wait()
    return min(envtui_times), min(openssh_times)


async def main_async(repeat: int, sizes: tuple[int, ...]) -> None:
    print(f"{'hosts':>5}  {'envtui':>9}  {'OpenSSH ssh':>11}  {'envtui/ssh':>10}")
    print("-" * 42)
    for count in sizes:
        envtui_time, openssh_time = await measure(count, repeat)
        ratio = envtui_time / openssh_time
        print(f"{count:>5}  {envtui_time:>8.3f}s  {openssh_time:>10.3f}s  {ratio:>9.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="rounds per size (best is kept)")
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--serve", nargs=2, metavar=("N", "DIR"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(serve(int(args.serve[0]), Path(args.serve[1])))
        return
    if shutil.which("ssh") is None:
        sys.exit(
            "bench_fanout: OpenSSH's ssh client is not installed (Debian package openssh-client)"
        )
    os.environ.pop("SSH_AUTH_SOCK", None)
    asyncio.run(main_async(args.repeat, tuple(args.sizes)))


if __name__ == "__main__":
    main()
