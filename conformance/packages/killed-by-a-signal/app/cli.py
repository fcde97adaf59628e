"""A conformance package whose every run is ended by SIGTERM before it prints anything."""

import os
import signal

signal.signal(signal.SIGTERM, signal.SIG_DFL)
os.kill(os.getpid(), signal.SIGTERM)
