"""PaddlePaddle Cloud on the local cluster: its API on a port of its own (`app.py`), its jobs on the
same runner (`jobs.py`), its file server over the same storage (`pfs.py`)."""
