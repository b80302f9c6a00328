"""The dashboard in a browser tab: the tab host's side of ``envtui serve`` (its packets, its
driver, the browser's keys) and how a file reaches the person (a download or a folder)."""
