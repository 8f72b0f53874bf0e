"""gpudoctor: the wheel's side of the native gpudoctor binary.

Nothing here runs during a check: the `gpudoctor` console script execs the
binary (see __main__.py).  binary() gives its path for tools that want to
run it themselves.
"""
import os

__all__ = ["binary"]


def binary():
    """Absolute path of the gpudoctor executable inside this package."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "_bin", "gpudoctor")
