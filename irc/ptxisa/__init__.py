"""The PTX dialect, shared by every layer that reads or writes PTX.

`model` (the thin PTX program model: instructions in PTX's own spelling), `facts` (per-opcode instruction
facts: destinations, memory effect, barrier / collective / terminator), `gates` (which targets accept a
reference form) and `forms` (the forms the backend emits and the `.version` each needs). The backend
(`irc.backends.ptx`), the PTX front end (`irc.frontend.ptx`) and the emulator (`irc.emu`) all read this
package; it imports nothing above `irc.target`.
"""
