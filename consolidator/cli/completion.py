"""``consolidator completion bash|zsh|fish``: a completion script, made from the parser itself,
so it names every command and option there is.

Install, by shell::

    consolidator completion bash > ~/.local/share/bash-completion/completions/consolidator
    consolidator completion zsh > "${fpath[1]}/_consolidator"
    consolidator completion fish > ~/.config/fish/completions/consolidator.fish
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Mapping

from consolidator.cli.codes import EXIT_OK
from consolidator.cli.parser import build_parser


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Command (``config check`` for a nested one) -> its parser."""
    out: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:  # argparse keeps its sub-parsers only here
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                out[name] = child
                out.update({f"{name} {k}": v for k, v in _commands(child).items()})
    return out


def _options(parser: argparse.ArgumentParser) -> list[str]:
    return sorted({s for a in parser._actions for s in a.option_strings if s.startswith("--")})


def _choices(parser: argparse.ArgumentParser) -> list[str]:
    return [str(c) for a in parser._actions if not a.option_strings and a.choices
            and not isinstance(a, argparse._SubParsersAction) for c in a.choices]


def _words(name: str, parser: argparse.ArgumentParser,
           commands: Mapping[str, argparse.ArgumentParser]) -> str:
    """What may follow command ``name``: its options, choices and sub-commands, quoted."""
    nested = [n.split()[-1] for n in commands if n.startswith(name + " ")]
    return shlex.quote(" ".join(_options(parser) + _choices(parser) + nested))


def bash(parser: argparse.ArgumentParser) -> str:
    commands = _commands(parser)
    top = " ".join(name for name in commands if " " not in name)
    cases = "\n".join(
        f"        {shlex.quote(name.split()[-1])}) words={_words(name, p, commands)} ;;"
        for name, p in commands.items())
    return f"""# bash completion for consolidator
_consolidator() {{
    local cur words cmd i
    cur="${{COMP_WORDS[COMP_CWORD]}}"
    cmd=""
    for ((i = 1; i < COMP_CWORD; i++)); do
        case "${{COMP_WORDS[i]}}" in -*) ;; *) cmd="${{COMP_WORDS[i]}}" ;; esac
    done
    case "$cmd" in
{cases}
        *) words={shlex.quote(top + ' ' + ' '.join(_options(parser)))} ;;
    esac
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
}}
complete -o default -F _consolidator consolidator
"""


def zsh(parser: argparse.ArgumentParser) -> str:
    commands = _commands(parser)
    described = "\n".join(f"        {shlex.quote(name + ':' + (p.description or ''))}"
                          for name, p in commands.items() if " " not in name)
    cases = "\n".join(
        f"        {name}) _values option "
        + " ".join(shlex.quote(o) for o in _options(p) + _choices(p)) + " ;;"
        for name, p in commands.items() if " " not in name)
    return f"""#compdef consolidator
# zsh completion for consolidator
_consolidator() {{
    if (( CURRENT == 2 )); then
        local -a commands
        commands=(
{described}
        )
        _describe command commands
        return
    fi
    case "$words[2]" in
{cases}
    esac
}}
_consolidator "$@"
"""


def fish(parser: argparse.ArgumentParser) -> str:
    commands = _commands(parser)
    lines = ["# fish completion for consolidator", "complete -c consolidator -f"]
    for name, p in commands.items():
        if " " in name:
            parent, child = name.split()
            lines.append(f"complete -c consolidator -n '__fish_seen_subcommand_from {parent}' "
                         f"-a {shlex.quote(child)} -d {shlex.quote(p.description or '')}")
            continue
        lines.append(f"complete -c consolidator -n '__fish_use_subcommand' -a {name} "
                     f"-d {shlex.quote(p.description or '')}")
        for option in _options(p):
            lines.append(f"complete -c consolidator -n '__fish_seen_subcommand_from {name}' "
                         f"-l {option[2:]}")
        for choice in _choices(p):
            lines.append(f"complete -c consolidator -n '__fish_seen_subcommand_from {name}' "
                         f"-a {shlex.quote(choice)}")
    return "\n".join(lines) + "\n"


def completion(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    makers = {"bash": bash, "zsh": zsh, "fish": fish}
    print(makers[args.shell](build_parser()), end="")
    return EXIT_OK
