"""The MkDocs hook of the series, as mkdocs.yml names it (`hooks:`). MkDocs loads this file as a module and calls
its on_* functions: each is a method of this module's one SeriesHooks (codeproof.adapter.hooks), the adapter
between MkDocs and the engine. MkDocs keeps the module across `serve` rebuilds; on_config renews the build."""

from codeproof.adapter.hooks import SeriesHooks

hooks = SeriesHooks(__name__)
on_startup, on_config, on_files, on_nav = hooks.on_startup, hooks.on_config, hooks.on_files, hooks.on_nav
on_env = hooks.on_env
on_page_markdown, on_page_content = hooks.on_page_markdown, hooks.on_page_content
on_page_context, on_post_build = hooks.on_page_context, hooks.on_post_build
on_build_error, on_shutdown, on_serve = hooks.on_build_error, hooks.on_shutdown, hooks.on_serve
