"""The ``<environment_context>`` engine: model, render, diff, snapshot, merge patch, paths.

Everything here is pure and headless (standard library and pydantic only), so the
command line, the runtime and tests use it without paying for Textual or asyncio I/O.
Callers import the module they need (``envtui.context.render``, ``.model``, …): this
package re-exports nothing, so importing one part loads only that part.
"""
