"""The ``envtui`` command line: one argparse tree, each subcommand in its own module.

A command's module is imported only when that command runs (or when the whole tree is
needed: ``--help``, a mistyped command, completion and the man page), so ``envtui render``
pays neither for the config and event models nor for asyncio, and nothing here loads
Textual. Every subcommand has a description and every argument a help text that shows its
default (a test checks both), and the same tree generates the shell completion and the man
page.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import re
import signal
import sys
import threading
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from envtui import __version__
from envtui.commands import COMMANDS
from envtui.commands.output import OutputError, error_line

if TYPE_CHECKING:
    import logging

COMMAND_MODULES: dict[str, str] = {name: listed.module for name, listed in COMMANDS.items()}
"""Which module adds each subcommand (its ``add_parser``, or ``add_parsers`` for several)."""

NEEDS_THE_WHOLE_TREE = frozenset({"completion", "manpage"})
"""Commands generated from the parser itself: their module gets the root parser, and every
other command is loaded with them."""


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, adding ``(default: …)`` where a default means something."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        meaningful = default not in (None, False, argparse.SUPPRESS, [], ())
        if meaningful and "default" not in text and action.option_strings:
            text += " (default: %(default)s)"
        return text


_INVALID_CHOICE = re.compile(r"invalid choice: '(?P<word>[^']*)' \(choose from (?P<choices>.*)\)$")


class Parser(argparse.ArgumentParser):
    """argparse's parser, with "did you mean …" for a mistyped command, choice or flag
    (argparse in Python 3.11 has none)."""

    listed_only = False
    """The root parser with every command listed but none's options added
    (:func:`listing_parser`): the commands' flags, to suggest from, are built when asked."""

    def error(self, message: str) -> NoReturn:
        super().error(self.suggesting(message))

    def suggesting(self, message: str) -> str:
        from envtui.vocabulary.suggest import did_you_mean

        choice = _INVALID_CHOICE.search(message)
        if choice is not None:
            choices = re.findall(r"'([^']*)'", choice.group("choices"))
            hint = did_you_mean(choice.group("word"), choices)
            if hint is not None:
                return (
                    f"{message[: choice.start()]}invalid choice: {choice.group('word')!r}; {hint}"
                )
            return message
        if message.startswith("unrecognized arguments: "):
            flags = [o for action in self._actions for o in action.option_strings]
            words = message.removeprefix("unrecognized arguments: ").split()
            for word in (w.partition("=")[0] for w in words if w.startswith("-")):
                hint = did_you_mean(word, flags)
                if hint is not None:
                    return f"{message}; {word}: {hint}"
                hint = did_you_mean(word, self._command_flags())
                if hint is not None:  # a command's flag, typed before the command
                    return f"{message}; {word}: {hint} (it goes after the command)"
        return message

    def _command_flags(self) -> set[str]:
        tree = build_parser() if self.listed_only else self
        return {
            flag
            for action in tree._actions
            if isinstance(action, argparse._SubParsersAction)
            for sub in action.choices.values()
            for each in sub._actions
            for flag in each.option_strings
        }


def _global_options(parser: argparse.ArgumentParser, *, defaults: bool) -> None:
    """``--debug`` and ``--log-file``, before or after the subcommand."""
    missing = None if defaults else argparse.SUPPRESS
    parser.add_argument(
        "--debug",
        action="store_true",
        default=False if defaults else argparse.SUPPRESS,
        help="write a debug log: connections, retries, protocol messages (see `envtui info`)",
    )
    parser.add_argument(
        "--log-file",
        metavar="FILE",
        default=missing,
        help="where --debug writes (default: the debug log `envtui info` names)",
    )


def _root_parser() -> tuple[Parser, argparse._SubParsersAction[Parser]]:
    """The root parser with the global options, and where its commands go."""
    parser = Parser(
        prog="envtui",
        description="A live terminal dashboard for multi-environment agent turns.",
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"envtui {__version__}")
    _global_options(parser, defaults=True)
    return parser, parser.add_subparsers(dest="command", metavar="COMMAND")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; with a known ``command``, only that command's module is loaded."""
    parser, subparsers = _root_parser()
    whole = command not in COMMAND_MODULES or command in NEEDS_THE_WHOLE_TREE
    wanted = COMMAND_MODULES.values() if whole else [COMMAND_MODULES[str(command)]]
    for name in dict.fromkeys(wanted):
        module = importlib.import_module(name)
        if name.rpartition(".")[2] in NEEDS_THE_WHOLE_TREE:
            module.add_parser(subparsers, parser)
        else:
            (getattr(module, "add_parser", None) or module.add_parsers)(subparsers)
    for sub in subparsers.choices.values():
        sub.formatter_class = HelpFormatter
        _global_options(sub, defaults=False)
    return parser


def listing_parser() -> argparse.ArgumentParser:
    """The root parser with each command by its name and summary (:data:`COMMANDS`) and no
    command's module loaded: all that ``envtui --help``, ``--version``, a missing or a
    mistyped command need. A flag it does not know is suggested from the whole tree."""
    parser, subparsers = _root_parser()
    parser.listed_only = True
    for name, listed in COMMANDS.items():
        subparsers.add_parser(name, help=listed.summary)
    return parser


def parser_for(arguments: Sequence[str]) -> argparse.ArgumentParser:
    """The parser ``arguments`` need: the one command's they name, or the listing."""
    command = command_of(arguments)
    return build_parser(command) if command in COMMAND_MODULES else listing_parser()


def command_of(arguments: Sequence[str]) -> str | None:
    """The subcommand named in ``arguments``, past the global options before it."""
    words = iter(arguments)
    for word in words:
        if word == "--log-file":
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def with_default_command(argv: Sequence[str]) -> list[str]:
    """``envtui`` alone starts the dashboard on the embedded demo."""
    return list(argv) if argv else ["demo"]


class StopSignal(SystemExit):
    """SIGTERM or SIGHUP before a command took them over: the command ends as a signal
    would end it (status 128 + the signal's number), with its ``finally`` clauses run.

    A SystemExit, so asyncio lets it through a running loop at once, and no ``except
    Exception`` on the way can keep the process alive.
    """


STOP_GRACE = 1.5
"""Seconds the clean way out gets after a signal :func:`stop_by_default` caught; then the
signal is sent again, to end the process for certain."""
LAST_RESORT = 5.0
"""Seconds after which a process that is still running, after such a signal and the one
sent again, exits at once (status 128 + N) whatever it is doing."""

_received: list[int] = []
"""The signals :func:`_stop` took in this run of :func:`main`: a library that turns every
exception into its own (pydantic, building a model's validator during an import, makes
the StopSignal a ``SchemaError``) must not make a signal look like a bug."""


def _stop(signum: int, frame: object) -> None:
    """Raise :class:`StopSignal`, and make sure the process ends even if it is swallowed.

    A signal handler's exception is raised wherever the main thread is, and some places
    swallow it (a finaliser, a library's ``except BaseException``) or leave a half-started
    command behind. So the signal's default action comes back, and a timer sends it again
    after :data:`STOP_GRACE` seconds (a command that has meanwhile taken the signal over
    stops its own clean way); after :data:`LAST_RESORT` seconds the process exits.
    Nothing here imports (the signal may come in the middle of an import) and nothing but
    the StopSignal leaves it.
    """
    signal.signal(signum, signal.SIG_DFL)
    _received.append(signum)
    with contextlib.suppress(Exception):  # no thread to be had: the default action is back
        for delay, action, arguments in (
            (STOP_GRACE, os.kill, (os.getpid(), signum)),
            (LAST_RESORT, os._exit, (128 + signum,)),
        ):
            timer = threading.Timer(delay, action, arguments)
            timer.daemon = True
            timer.start()
    raise StopSignal(128 + signum)


def stop_by_default() -> dict[int, object]:
    """SIGTERM and SIGHUP end the process from its first line on, in every state.

    A command that runs a loop replaces these with its own clean shutdown
    (:func:`envtui.vocabulary.stopping.on_signals`); before that (imports, the config,
    Textual loading), and after, the signal still ends the command. A signal the parent
    made us ignore (``nohup``) stays ignored. The handlers replaced, to put back.
    """
    replaced: dict[int, object] = {}
    for signum in (signal.SIGTERM, signal.SIGHUP):
        with contextlib.suppress(ValueError, OSError):  # ValueError: not the main thread
            if signal.getsignal(signum) is signal.SIG_DFL:
                replaced[signum] = signal.signal(signum, _stop)
    return replaced


def _restore(handlers: dict[int, object]) -> None:
    for signum, handler in handlers.items():
        with contextlib.suppress(ValueError, OSError, TypeError):
            signal.signal(signum, handler)  # type: ignore[arg-type]


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; its exit code: 0 done, 1 a failure while running, 2 bad input,
    128 + N when signal N ended it before the command took the signal over.

    Whatever goes wrong ends in one line on standard error, never a traceback: a reader
    that went away is quiet, an output that cannot be written (a full disk) says so, and a
    failure nobody foresaw is reported as an internal error with its type.
    """
    _received.clear()
    replaced = stop_by_default()
    shown = warnings.showwarning
    warnings.showwarning = _warning_to_debug_log
    try:
        return _main(argv)
    except Exception:
        # the signal, wrapped by a library or by Python itself (an error in a class body's
        # ``__set_name__`` becomes a RuntimeError) while the command line was being built
        if _received:
            return 128 + _received[-1]
        raise
    finally:
        _restore(replaced)  # a caller in the same process (a test) keeps its own handlers
        warnings.showwarning = shown


def _warning_to_debug_log(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: object = None,
    line: str | None = None,
) -> None:
    """A warning that a library raises goes to the debug log, never to the terminal.

    A dependency's next release may warn about anything (cryptography 51 made asyncssh
    print ten lines at import): that is for whoever upgrades envtui's pins, not for the
    person at the dashboard, whose standard error carries one line per problem. With
    ``--debug`` the warning is in the log; without, it is dropped like any debug record.
    """
    from envtui.vocabulary import debug_log

    debug_log.logger("envtui.warnings").debug(
        "%s:%s: %s: %s", filename, lineno, category.__name__, message
    )


def _main(argv: Sequence[str] | None) -> int:
    arguments = with_default_command(sys.argv[1:] if argv is None else argv)
    parser = parser_for(arguments)
    _refuse_unknown_global_flags(parser, arguments)
    args, extras = parser.parse_known_args(arguments)
    if extras:  # said by the command's own parser: its usage, and its flags to suggest from
        hint = ""
        if args.command == "render":
            from envtui.commands.render import hint_for_extras

            hint = hint_for_extras(extras)
        _parser_of(parser, args.command).error(f"unrecognized arguments: {' '.join(extras)}{hint}")
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        handler = _start_debug_log(args)
    except OSError as exc:
        error_line(f"envtui: error: {exc.filename}: cannot write the debug log: {exc.strerror}")
        return 2
    try:
        code: int = args.handler(args)
        _flush_stdout()
    except BrokenPipeError:
        # The reader went away (``envtui render … | head``): not an error worth a traceback.
        _discard_stdout()
        return 1
    except KeyboardInterrupt:
        return 130
    except OutputError as exc:
        _discard_stdout()
        error_line(f"envtui {args.command}: error: {exc}")
        return 1
    except Exception as exc:  # the last resort: a bug must still not print a traceback
        if _received:  # the signal, raised inside a library that wrapped it: it ends us
            return 128 + _received[-1]
        error_line(f"envtui {args.command}: internal error: {type(exc).__name__}: {exc}")
        return 1
    finally:
        if handler is not None:
            from envtui.vocabulary import debug_log

            debug_log.stop(handler)
    return code


def _refuse_unknown_global_flags(parser: argparse.ArgumentParser, arguments: Sequence[str]) -> None:
    """A flag before the command that envtui does not take is the error (with the flag it
    was meant to be), not the word after it taken for a command."""
    flags = [o for action in parser._actions for o in action.option_strings]
    words = iter(arguments)
    for word in words:
        if not word.startswith("-"):
            return
        name = word.partition("=")[0]
        if name == "--log-file" and "=" not in word:
            next(words, None)
        elif not any(flag.startswith(name) for flag in flags):
            parser.error(f"unrecognized arguments: {word}")


def _parser_of(parser: argparse.ArgumentParser, command: str | None) -> argparse.ArgumentParser:
    """The subcommand's parser, or the root parser without one."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            sub: argparse.ArgumentParser = action.choices[command]
            return sub
    return parser


def _flush_stdout() -> None:
    """What a command printed and Python still holds, written now: a failure is standard
    output's (an :class:`OutputError`), said in one line like any other."""
    if sys.stdout is None:  # None when the process was started with it closed
        return
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputError(f"standard output: cannot write: {exc.strerror or exc}") from None


def _discard_stdout() -> None:
    """Point standard output at /dev/null, so the flush at exit cannot fail again."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def _start_debug_log(args: argparse.Namespace) -> logging.Handler | None:
    """The debug log's handler when ``--debug`` or ``--log-file`` asks for one."""
    if not args.debug and not args.log_file:
        return None
    from envtui.settings.locations import log_file
    from envtui.vocabulary import debug_log

    handler = debug_log.start(Path(args.log_file) if args.log_file else log_file())
    debug_log.logger("envtui").debug("envtui %s: argv %s", __version__, sys.argv[1:])
    return handler


if __name__ == "__main__":
    raise SystemExit(main())
