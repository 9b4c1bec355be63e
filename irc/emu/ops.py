"""Imports every semantics module so that their @op registrations populate the table."""

from irc.emu import ops_alu, ops_mbar, ops_mem, ops_sync, ops_tcgen05, ops_tensor  # noqa: F401
from irc.emu.async_engine import install

install()  # asynchronous completion of cp.async / bulk copies / tcgen05.mma (when a launch asks for it)
