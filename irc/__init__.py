"""irc: a compiler and static analyzer for GPU kernels (.kdsl -> SSA IR -> PTX; `irc check` for .kdsl and .ptx)."""

__version__ = "0.1.0"
