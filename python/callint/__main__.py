"""``callint`` on the command line, as the wheel installs it.

The same command line as the binary built with cargo: ``python -m callint
check logs/`` and the ``callint`` script both run it.
"""

import sys

from callint import _callint


def main() -> None:
    """Run ``callint`` with this process's arguments and exit with its status."""
    sys.stdout.flush()
    sys.exit(_callint.main(["callint", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
