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
    try:
        os.execv(exe, [exe] + sys.argv[1:])
    except OSError as e:
        sys.stderr.write(f"gpudoctor: cannot run {exe}: {e}\n")
        return 2


if __name__ == "__main__":
    sys.exit(main())
