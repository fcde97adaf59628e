"""The timer's own success shapes, beyond a timer and a list: what `export` and
`import` answer, the kit's for a timer (backup.export_envelope, backup.Imported). schemas/
describes them (`new_app(envelopes=...)`)."""

from __future__ import annotations

from agentic_kit import backup

from .models import Timer

Export = backup.export_envelope(Timer, "every timer")

ENVELOPES = (Export, backup.Imported)
