"""The one base class of the errors the engine reports to a person (cog's CogError pattern): a message, a hint
saying what to do, and the command line's exit status. Problems in posts are values (structure.Problem),
reported together; an error stops the command. `PluginError` is the hook's only (MkDocs') error."""

from __future__ import annotations


class CodeproofError(Exception):
    """Stops the command: `message`, `hint` (what to do, or ""), exit status `exit_code`."""

    exit_code = 2  # the command could not do its work (1 is kept for "it found problems")

    def __init__(self, message: str, hint: str = ""):
        super().__init__(message)
        self.hint = hint

    def shown(self, where: str | None = "error") -> str:
        """As the command line prints it: `error: message` (or `where: message`; the message alone with None)
        and, on its own line, `  hint: …`."""
        return (f"{where}: {self}" if where else str(self)) + (f"\n  hint: {self.hint}" if self.hint else "")


class UsageError(CodeproofError):
    """The command was asked for something it cannot do as asked (a version that is not one, a dirty tree)."""
