"""__NAME_PY__'s domain: the entry model and the operations on the state."""
