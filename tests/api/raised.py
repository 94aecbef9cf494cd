"""The refusal codes a view function can raise, read from the source: a walk over the calls it
makes that can be resolved without running it (a function or class of a module, a method of
an object whose type an annotation names), into the code of ``api/`` and ``services/``.

A code is raised where ``ApiError(status, "code", ...)`` is built, where a call passes
``code="..."``, and where a ``ServiceError`` subclass is built without ``code=`` (its class'
code). What the walk cannot follow (a game's rules behind ``Game``, a code re-raised from a
variable) the tests name apart.
"""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap
import types
import typing
from dataclasses import dataclass
from typing import Any

from api.http.problems import ApiError
from services.errors import ServiceError

FOLLOWED = ("api.", "services.")


@dataclass(frozen=True)
class Instance:
    """A value of a known class (as opposed to the class itself)."""

    kind: type


def _hints(thing: Any) -> dict[str, Any]:
    try:
        return typing.get_type_hints(thing)
    except Exception:  # an annotation that names what the module imports only for typing
        return {}


def _instance(annotation: Any) -> Instance | None:
    if isinstance(annotation, type):
        return Instance(annotation)
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(args) == 1:
        return _instance(args[0])
    return None


def _attribute_type(kind: type, name: str) -> Instance | None:
    """An attribute of ``kind``'s instances: a class annotation, or its __init__'s parameter."""
    for source in (kind, getattr(kind, "__init__", None)):
        found = _instance(_hints(source).get(name)) if source is not None else None
        if found is not None:
            return found
    return None


def _followed(thing: Any) -> bool:
    return (getattr(thing, "__module__", None) or "").startswith(FOLLOWED)


def _implementations(protocol: type) -> list[type]:
    """The classes of our loaded modules that have every member of ``protocol``: a method called
    on a protocol (a part given a ``GameRepository``) raises what theirs raise."""
    attributes = typing._get_protocol_attrs(protocol)  # type: ignore[attr-defined]  # none public in 3.11
    members = [m for m in attributes if inspect.isfunction(getattr(protocol, m, None))]
    found = []
    for name, module in list(sys.modules.items()):
        if not name.startswith(FOLLOWED):
            continue
        for thing in vars(module).values():
            if (
                isinstance(thing, type)
                and thing.__module__ == name
                and not getattr(thing, "_is_protocol", False)
                and all(hasattr(thing, member) for member in members)
            ):
                found.append(thing)
    return found


class _Walk:
    def __init__(self) -> None:
        self.codes: set[str] = set()
        self.seen: set[Any] = set()

    def function(self, func: Any, owner: type | None = None) -> None:
        func = getattr(func, "__func__", func)
        if func in self.seen or not inspect.isfunction(func) or not _followed(func):
            return
        self.seen.add(func)
        if owner is not None and getattr(owner, "_is_protocol", False):
            for implementation in _implementations(owner):
                self.function(getattr(implementation, func.__name__, None), implementation)
        wrapped = getattr(func, "__wrapped__", None)
        if wrapped is not None:
            self.function(wrapped, owner)
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
        except (OSError, TypeError):
            return
        env: dict[str, Any] = {}
        for name, annotation in _hints(func).items():
            env[name] = _instance(annotation)
        params = list(inspect.signature(func).parameters)
        if owner is not None and params:
            env[params[0]] = Instance(owner)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
            ):
                value = self._value(node.value, env, func.__globals__)
                if value is not None:
                    env[node.targets[0].id] = value
            if isinstance(node, ast.Call):
                self._call(node, env, func.__globals__)

    def _value(self, node: ast.expr, env: dict[str, Any], names: dict[str, Any]) -> Any:
        """What an expression evaluates to, as far as the source tells: a module, a class, a
        function, or an Instance."""
        if isinstance(node, ast.Name):
            return env[node.id] if node.id in env else names.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self._value(node.value, env, names)
            if isinstance(base, Instance):
                found = getattr(base.kind, node.attr, None)
                if inspect.isfunction(found):
                    return (found, base.kind)
                return _attribute_type(base.kind, node.attr)
            if isinstance(base, types.ModuleType | type):
                return getattr(base, node.attr, None)
            return None
        if isinstance(node, ast.Call):
            target = self._value(node.func, env, names)
            if isinstance(target, type):
                return Instance(target)
            func = target[0] if isinstance(target, tuple) else target
            if inspect.isfunction(func):
                return _instance(_hints(func).get("return"))
        return None

    def _call(self, node: ast.Call, env: dict[str, Any], names: dict[str, Any]) -> None:
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        code = keywords.get("code")
        if isinstance(code, ast.Constant) and isinstance(code.value, str):
            self.codes.add(code.value)
        target = self._value(node.func, env, names)
        if target is ApiError:
            if len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
                self.codes.add(node.args[1].value)
            return
        if isinstance(target, type) and issubclass(target, ServiceError):
            if "code" not in keywords:
                self.codes.add(target.code)
            self.function(target.__init__, target)
            return
        if isinstance(target, tuple):
            self.function(*target)
        elif isinstance(target, type) and _followed(target):
            self.function(target.__init__, target)
        else:
            self.function(target)


def raised_codes(view: Any) -> set[str]:
    walk = _Walk()
    walk.function(view)
    return walk.codes
