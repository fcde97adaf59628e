"""The notes app's own success shapes, beyond a note and a list: what `export` and
`import` answer, the kit's for a note (backup.export_envelope, backup.Imported). schemas/
describes them (`new_app(envelopes=...)`)."""

from __future__ import annotations

from agentic_kit import backup

from .models import Note

Export = backup.export_envelope(Note, "every note")

ENVELOPES = (Export, backup.Imported)
