"""`@record`: the subset of `@dataclasses.dataclass` irc uses, at a fraction of its class-creation cost.

Why: `irc compile` and `irc check` are short processes, and building irc's ~80 dataclasses took about
half of the import time (33 of 64 ms measured, issue 15): `dataclass` generates every method with its
own `compile` + `exec`, calls `inspect.signature` for each class's docstring, and pattern-matches every
string annotation. `record` compiles one small source per class (`__init__`, and `__eq__`/`__hash__`
when they are generated) and needs neither `inspect` nor `dataclasses`.

The semantics are dataclasses' for what irc uses (tests/test_records.py compares them side by side):
- fields are the class's annotated names after its record bases' fields, `ClassVar` annotations
  excluded; a default is the class attribute, or `field(default=..., default_factory=...)`; a field
  without a default after one with a default is a TypeError; a list, dict or set default is a
  ValueError;
- `__init__(self, <fields in order>)` then `__post_init__()` if the class has one;
- `eq=True` (default): `__eq__` compares the field tuples of two instances of the same class;
  `frozen=True`: assignment raises `FrozenInstanceError`, and with `eq` a field-tuple `__hash__`;
  `eq=True, frozen=False`: unhashable, as with dataclasses; methods the class body defines are kept;
- `__repr__` is `Name(a=1, b=2)`; `__match_args__` lists the fields;
- `fields(x)` and `replace(x, **changes)` work on classes and instances.
"""

from __future__ import annotations

from collections.abc import Callable
from types import CodeType
from typing import Any, TypeVar

T = TypeVar("T")


def _compiled(src: str, filename: str) -> CodeType:
    """The code of `src`: the function generated for this exact text in `irc/record_codes.py` when there
    is one (its bytecode comes from Python's own `__pycache__`, like any module of the package), else
    compiled now. Why: compiling irc's ~120 record methods at every start-up cost ~15 ms of a 80 ms
    `irc compile` (issue 15); they used to be cached as code objects in the user cache directory, which
    made that directory a place to plant code (issue 27). `tests/test_record_codes.py` keeps the module
    current (`python tests/test_record_codes.py --update`); a class it does not know is compiled here,
    correctly, just not for free."""
    from irc.record_codes import CODES

    fn = CODES.get(f"{filename}\0{src}")
    return fn.__code__ if fn is not None else compile(src, filename, "exec")


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class FrozenInstanceError(AttributeError):
    """Assignment to a field of a frozen record (dataclasses' exception of the same name)."""


class Field:
    """One field: its name, annotation (a string under `from __future__ import annotations`), and its
    default or default factory (`MISSING` when none)."""

    __slots__ = ("name", "type", "default", "default_factory")

    def __init__(self, default: Any = MISSING, default_factory: Any = MISSING) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name = ""
        self.type: Any = None
        self.default = default
        self.default_factory = default_factory

    def __repr__(self) -> str:
        return (
            f"Field(name={self.name!r}, default={self.default!r}, default_factory={self.default_factory!r})"
        )


def field(*, default: Any = MISSING, default_factory: Callable[[], Any] | Any = MISSING) -> Any:
    """A field's default given explicitly; `default_factory` makes a fresh default for every instance."""
    return Field(default, default_factory)


def _is_classvar(annotation: Any) -> bool:
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__qualname__", "")
    return text.startswith(("ClassVar", "typing.ClassVar", "t.ClassVar"))


def make_init(
    name: str, fields: list[Field], *, frozen: bool = False, post_init: bool = False, extra: str = ""
) -> dict[str, Any]:
    """Compile `__init__` for `fields` (plus any `extra` source, which may use `_fields`) and return the
    namespace it was defined in. Defaults are bound as globals of the generated function, so a default
    is the very object given, as with dataclasses."""
    params: list[str] = []
    body: list[str] = []
    env: dict[str, Any] = {"_MISSING": MISSING, "_set": object.__setattr__}
    seen_default = False
    for f in fields:
        n = f.name
        if f.default_factory is not MISSING:
            env[f"_make_{n}"] = f.default_factory
            params.append(f"{n}=_MISSING")
            value = f"_make_{n}() if {n} is _MISSING else {n}"
            seen_default = True
        elif f.default is not MISSING:
            env[f"_dflt_{n}"] = f.default
            params.append(f"{n}=_dflt_{n}")
            value = n
            seen_default = True
        else:
            if seen_default:
                raise TypeError(f"non-default argument {n!r} follows default argument")
            params.append(n)
            value = n
        body.append(f"    _set(self, {n!r}, {value})" if frozen else f"    self.{n} = {value}")
    if post_init:
        body.append("    self.__post_init__()")
    src = f"def __init__(self, {', '.join(params)}):\n" + ("\n".join(body) or "    pass") + "\n" + extra
    exec(_compiled(src, f"<record {name}>"), env)
    return env


def _eq_hash_source(names: tuple[str, ...], eq: bool, hashed: bool) -> str:
    this = "(" + "".join(f"self.{n}," for n in names) + ")"
    that = "(" + "".join(f"other.{n}," for n in names) + ")"
    src = ""
    if eq:
        src += (
            "def __eq__(self, other):\n"
            f"    if other.__class__ is self.__class__:\n        return {this} == {that}\n"
            "    return NotImplemented\n"
        )
    if hashed:
        src += f"def __hash__(self):\n    return hash({this})\n"
    return src


def _repr(self: Any) -> str:
    inner = ", ".join(f"{f}={getattr(self, f)!r}" for f in type(self).__record_names__)
    return f"{type(self).__qualname__}({inner})"


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    if type(self).__record_frozen_class__ is type(self) or name in type(self).__record_names__:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")
    object.__setattr__(self, name, value)


def _frozen_delattr(self: Any, name: str) -> None:
    if type(self).__record_frozen_class__ is type(self) or name in type(self).__record_names__:
        raise FrozenInstanceError(f"cannot delete field {name!r}")
    object.__delattr__(self, name)


def _process(cls: type, eq: bool, frozen: bool) -> type:
    own: dict[str, Field] = {}
    for b in reversed(cls.__mro__[1:]):
        own.update(getattr(b, "__record_fields__", {}))  # inherited fields first, in base order
    ns = cls.__dict__
    for n, ann in ns.get("__annotations__", {}).items():
        if _is_classvar(ann):
            continue
        v = ns.get(n, MISSING)
        f = v if isinstance(v, Field) else Field(default=v)
        if isinstance(f.default, (list, dict, set)):
            raise ValueError(
                f"mutable default {type(f.default)} for field {n} is not allowed: use default_factory"
            )
        f.name, f.type = n, ann
        own[n] = f
        if isinstance(v, Field):  # the class attribute becomes the plain default, or goes
            if f.default is MISSING:
                delattr(cls, n)
            else:
                setattr(cls, n, f.default)
    fields = list(own.values())
    names = tuple(own)
    explicit_hash = "__hash__" in ns and not (ns["__hash__"] is None and "__eq__" in ns)
    gen_eq = eq and "__eq__" not in ns
    gen_hash = eq and frozen and not explicit_hash
    env = make_init(
        cls.__qualname__,
        fields,
        frozen=frozen,
        post_init=hasattr(cls, "__post_init__"),
        extra=_eq_hash_source(names, gen_eq, gen_hash),
    )
    init = env["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init  # type: ignore[misc]
    if gen_eq:
        cls.__eq__ = env["__eq__"]  # type: ignore[method-assign]
    if gen_hash:
        cls.__hash__ = env["__hash__"]  # type: ignore[method-assign]
    elif eq and not frozen and not explicit_hash:
        cls.__hash__ = None  # type: ignore[assignment]
    if "__repr__" not in ns:
        cls.__repr__ = _repr  # type: ignore[method-assign]
    if frozen:
        if "__setattr__" in ns or "__delattr__" in ns:
            raise TypeError(f"cannot overwrite __setattr__/__delattr__ in frozen record {cls.__qualname__}")
        cls.__setattr__ = _frozen_setattr  # type: ignore[method-assign,assignment]
        cls.__delattr__ = _frozen_delattr  # type: ignore[method-assign,assignment]
        cls.__record_frozen_class__ = cls  # type: ignore[attr-defined]
    cls.__record_fields__ = own  # type: ignore[attr-defined]
    cls.__record_names__ = names  # type: ignore[attr-defined]
    cls.__match_args__ = names  # type: ignore[attr-defined]
    return cls


def record(cls: type[T] | None = None, /, *, eq: bool = True, frozen: bool = False) -> Any:
    """Class decorator: `@record`, `@record(frozen=True)`, `@record(eq=False)` (see the module doc)."""

    def wrap(c: type[T]) -> type[T]:
        return _process(c, eq, frozen)  # type: ignore[return-value]

    return wrap if cls is None else wrap(cls)


def fields(obj: Any) -> tuple[Field, ...]:
    """The fields of a record class or instance, in `__init__` order."""
    cls = obj if isinstance(obj, type) else type(obj)
    try:
        return tuple(cls.__record_fields__.values())
    except AttributeError:
        raise TypeError(f"{cls.__qualname__} is not a record") from None


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of the record `obj` with `changes` (a new instance through `__init__`, as dataclasses does)."""
    for f in fields(obj):
        if f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return type(obj)(**changes)
