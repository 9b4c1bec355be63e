"""`python -m irc`: the `irc` command (irc/cli.py). Also what runs when the clone, named `irc`, shadows the
package from its parent directory; the command line then says so (irc/shadow.py)."""

from irc.cli import run

if __name__ == "__main__":
    run()
