"""The console entry point: replace this Python process with the binary."""
import os
import sys


def main():
    exe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_bin", "gpudoctor")
    if not os.access(exe, os.X_OK):
        # An installer that dropped the mode bit: restore it once.
        try:
            os.chmod(exe, 0o755)
        except OSError as e:
            sys.stderr.write(f"gpudoctor: cannot run {exe}: {e}\n")
            return 2
    # The interpreter running this entry point is the environment the user
    # installed gpudoctor into (~/venv/bin/gpudoctor without activating
    # ~/venv): name it, so that its packages are inspected too.
    if sys.executable and os.path.isabs(sys.executable):
        os.environ.setdefault("GPUDOCTOR_PYTHON", sys.executable)
    try:
        os.execv(exe, [exe] + sys.argv[1:])
    except OSError as e:
        sys.stderr.write(f"gpudoctor: cannot run {exe}: {e}\n")
        return 2


if __name__ == "__main__":
    sys.exit(main())
