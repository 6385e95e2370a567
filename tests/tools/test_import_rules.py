"""Which way imports go (issue 27): the product never imports the tools or the supervisor, the
supervisor never imports the tools, the tools use only the supervisor's public names, and the
`boxedin` command's table names modules that exist. Every module's imports are read with `ast`:
imports inside functions and ``importlib.import_module("...")`` strings count as much as the
ones at the top."""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Iterator
from pathlib import Path

from boxedin.cli import COMMANDS

ROOT = Path(__file__).resolve().parents[2]
SERVICES = ROOT / "services"
# Not the product: the tools, the supervisor, and the command (cli.py), which names both to put
# every sub-command in one place. Everything else of services/ is the product, a package added
# later included.
OUTSIDE_THE_PRODUCT = ("boxedin.tools", "boxedin.supervisor")
COMMAND = SERVICES / "cli.py"


def module_name(path: Path, services: Path = SERVICES) -> str:
    """The dotted name of a module of services/ (the package boxedin)."""
    parts = list(path.relative_to(services).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["boxedin", *parts])


def imports(path: Path, services: Path = SERVICES) -> Iterator[tuple[int, str]]:
    """(line, module or module.name) for every import of a module, relative ones made absolute,
    wherever in the module it is, and every string given to importlib.import_module or
    __import__."""
    name = module_name(path, services)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            yield node.lineno, module
            for alias in node.names:
                yield node.lineno, f"{module}.{alias.name}"
        elif isinstance(node, ast.Call) and _names_an_import(node.func):
            for argument in node.args[:1]:
                if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                    yield node.lineno, argument.value


def _names_an_import(func: ast.expr) -> bool:
    if isinstance(func, ast.Attribute):
        return func.attr == "import_module"
    return isinstance(func, ast.Name) and func.id in {"import_module", "__import__"}


def within(module: str, packages: tuple[str, ...]) -> bool:
    return any(module == package or module.startswith(f"{package}.") for package in packages)


def modules_of(folder: str) -> list[Path]:
    found = sorted((SERVICES / folder).rglob("*.py"))
    assert found, folder
    return found


def product_modules() -> list[Path]:
    return [
        path
        for path in sorted(SERVICES.rglob("*.py"))
        if path != COMMAND and not within(module_name(path), OUTSIDE_THE_PRODUCT)
    ]


def offenders(paths: list[Path], forbidden: tuple[str, ...]) -> list[str]:
    return [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in paths
        for line, module in imports(path)
        if within(module, forbidden)
    ]


def test_the_reader_finds_imports_inside_functions_and_by_name(tmp_path: Path) -> None:
    # A module in a services/ folder of its own: the rules' reader is not blind to the imports
    # they forbid, however they are written.
    folder = tmp_path / "services" / "gateway"
    folder.mkdir(parents=True)
    (folder / "sample.py").write_text(
        "import importlib\n"
        "from ..tools.load import loadtest\n"
        "def later():\n"
        "    from boxedin.supervisor.launcher import Stack\n"
        "    return importlib.import_module('boxedin.tools.arena.series'), Stack\n"
    )
    found = {module for _, module in imports(folder / "sample.py", tmp_path / "services")}
    assert {"boxedin.tools.load.loadtest", "boxedin.supervisor.launcher.Stack", "boxedin.tools.arena.series"} <= found


def test_the_product_is_every_package_but_the_tools_and_the_supervisor() -> None:
    packages = {module_name(path).split(".")[1] for path in product_modules() if path.parent != SERVICES}
    assert {"engine", "ai", "common", "gateway", "matchmaker", "stats", "lan", "v1"} <= packages
    assert not packages & {"tools", "supervisor"}


def test_no_product_module_imports_the_tools_or_the_supervisor() -> None:
    assert offenders(product_modules(), OUTSIDE_THE_PRODUCT) == []


def test_the_supervisor_never_imports_the_tools() -> None:
    assert offenders(modules_of("supervisor"), ("boxedin.tools",)) == []


def test_the_tools_use_only_the_supervisors_public_names() -> None:
    private = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in modules_of("tools")
        for line, module in imports(path)
        if within(module, ("boxedin.supervisor",)) and any(part.startswith("_") for part in module.split("."))
    ]
    assert private == []


def test_the_commands_table_names_modules_that_exist_and_register_a_command() -> None:
    for name, module in COMMANDS.items():
        assert importlib.util.find_spec(module) is not None, (name, module)
        source = Path(str(importlib.util.find_spec(module).origin)).read_text()  # type: ignore[union-attr]
        assert "def register(" in source, (name, module)
        parent = name.rpartition(" ")[0]
        assert not parent or list(COMMANDS).index(parent) < list(COMMANDS).index(name), name
