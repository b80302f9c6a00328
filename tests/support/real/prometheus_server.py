"""A real Prometheus (Debian's ``prometheus``) on 127.0.0.1, scraping one target every second,
with its storage in a temporary folder, and its HTTP API queried like any dashboard does."""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

PROMETHEUS = shutil.which("prometheus")


@contextlib.contextmanager
def prometheus(directory: Path, port: int, target: str) -> Iterator[str]:
    """Run Prometheus scraping ``target`` (HOST:PORT); yields its base URL."""
    assert PROMETHEUS is not None
    config = directory / "prometheus.yml"
    config.write_text(
        "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
        "scrape_configs:\n  - job_name: envtui\n"
        f"    static_configs:\n      - targets: ['{target}']\n"
    )
    process = subprocess.Popen(
        [
            PROMETHEUS,
            f"--config.file={config}",
            f"--storage.tsdb.path={directory / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}",
            "--log.level=error",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def query(base: str, expression: str) -> list[dict[str, Any]]:
    """The instant vector ``expression`` has now ([] while Prometheus is not up yet)."""
    url = f"{base}/api/v1/query?{urllib.parse.urlencode({'query': expression})}"
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            answer = json.load(response)
    except OSError:
        return []
    result: list[dict[str, Any]] = answer["data"]["result"]
    return result
