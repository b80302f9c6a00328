"""What envtui adds to textual-serve's page: the token's way from the address to the
websocket, and the keyboard given to the terminal on load.

The page is the same for everyone who asks (it holds no data); what lets it drive a
dashboard is the token, which arrives in the address's fragment (``#token=...``: a
browser never sends a fragment to a server). :data:`TOKEN_SCRIPT`, run before textual.js,
moves it to ``sessionStorage`` (kept per origin, port included, and per tab: a reload of
the tab still has it, another site or port never sees it), takes it out of the address
bar (and so out of the history entry), and makes textual.js's websocket offer it as a
subprotocol beside :data:`~envtui.commands.serve.web_access.PAGE_PROTOCOL`. A page
opened without it says where to get it and connects nowhere.
"""

from __future__ import annotations

from envtui.commands.serve.web_access import PAGE_PROTOCOL, TOKEN_PROTOCOL_PREFIX

STORAGE_KEY = "envtui-serve-token"
TOKEN_SCRIPT = (
    "<script>(()=>{"
    f'const KEY="{STORAGE_KEY}";'
    "const found=/^#(?:.*&)?token=([^&]*)/.exec(location.hash);"
    "if(found){sessionStorage.setItem(KEY,decodeURIComponent(found[1]));"
    "history.replaceState(null,'',location.pathname+location.search);}"
    "const token=sessionStorage.getItem(KEY);"
    "const hex=Array.from(new TextEncoder().encode(token||''),"
    "b=>b.toString(16).padStart(2,'0')).join('');"
    "const Native=window.WebSocket;"
    "window.WebSocket=class extends Native{constructor(url){"
    "if(!token){throw new Error('envtui serve: no token');}"
    f'super(url,["{PAGE_PROTOCOL}","{TOKEN_PROTOCOL_PREFIX}"+hex]);}}}};'
    "if(!token){window.addEventListener('DOMContentLoaded',()=>{"
    "document.body.textContent='This dashboard needs its token: open the address "
    "envtui serve printed (it ends in #token=...).';"
    "document.body.style.color='#ddd';});}"
    "})();</script>"
)
"""The token from the fragment to ``sessionStorage``, and from there to the websocket."""
FOCUS_ON_LOAD = (
    "<script>window.addEventListener('load',()=>{"
    "const keys=document.querySelector('.xterm-helper-textarea');if(keys){keys.focus();}"
    "});</script>"
)
"""Gives the terminal the keyboard once the page has loaded (textual.js builds the terminal
in its own load handler, which runs first): keys typed at once reach the dashboard, with no
click into the page first."""


def with_page_scripts(page: str) -> str:
    """``page`` with :data:`TOKEN_SCRIPT` first in its head (before textual.js, which
    opens the websocket) and :data:`FOCUS_ON_LOAD` last in its body."""
    head, found, tail = page.partition("<head>")
    page = f"{head}{found}{TOKEN_SCRIPT}{tail}" if found else TOKEN_SCRIPT + page
    head, found, tail = page.rpartition("</body>")
    return f"{head}{FOCUS_ON_LOAD}{found}{tail}" if found else page + FOCUS_ON_LOAD
