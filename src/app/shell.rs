//! Completion in the shell, by clap_complete's dynamic engine: `iolab
//! completions SHELL` prints the script that registers iolab, and each TAB
//! runs iolab with `IOLAB_COMPLETE=SHELL` set, which answers from
//! `complete::command()` (so what completes is what this iolab knows) and
//! exits. Hidden options (`--fault`, for the tests) are never offered: the
//! engine would still offer one when it alone matches, so each shell's
//! answer is filtered here. The bash and zsh scripts are iolab's own, on
//! clap_complete's protocol: bash splits a word at `=`, and `--param
//! KEY=VALUE` completes only when iolab sees the word whole
//! (`BASH_SCRIPT`); zsh would put a space after a completed `KEY=`
//! (`ZSH_SCRIPT`).

use crate::cli::CompletionsArgs;
use clap::Command;
use clap_complete::env::{Bash, EnvCompleter, Fish, Powershell, Shells, Zsh};
use std::ffi::OsString;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// The variable a completion script sets to ask iolab.
const VAR: &str = "IOLAB_COMPLETE";

/// A shell's adapter, with hidden options left out of its answers.
struct Visible(&'static dyn EnvCompleter);

const BASH: Visible = Visible(&BASH_WHOLE);
const ZSH: Visible = Visible(&ZSH_KEYS);
const FISH: Visible = Visible(&Fish);
const ELVISH: Visible = Visible(&clap_complete::env::Elvish);
const POWERSHELL: Visible = Visible(&Powershell);
const SHELLS: Shells<'static> = Shells(&[&BASH, &ZSH, &FISH, &ELVISH, &POWERSHELL]);

/// Answers a completion script and exits, when one asked; else returns.
pub fn complete_if_asked() {
    clap_complete::CompleteEnv::with_factory(super::complete::command)
        .var(VAR)
        .shells(SHELLS)
        .complete();
}

/// `iolab completions SHELL`: the registration script on stdout.
pub(super) fn completions(args: &CompletionsArgs) -> anyhow::Result<ExitCode> {
    let name = args.shell.to_string();
    let shell = SHELLS
        .completer(&name)
        .ok_or_else(|| anyhow::anyhow!("no completion for {name}"))?;
    // The script calls this very iolab back, wherever it is installed.
    let completer = std::env::current_exe()?;
    let mut script = Vec::new();
    shell.write_registration(
        VAR,
        "iolab",
        "iolab",
        &completer.to_string_lossy(),
        &mut script,
    )?;
    super::out(&String::from_utf8(script)?)?;
    Ok(ExitCode::SUCCESS)
}

/// A shell whose registration script is iolab's own (`BIN`, `NAME`,
/// `VAR` and `COMPLETER` filled in), answering as clap_complete's adapter
/// of that shell does.
struct OwnScript {
    shell: &'static dyn EnvCompleter,
    script: &'static str,
}

/// bash, with the words it split at `=` joined again for iolab.
const BASH_WHOLE: OwnScript = OwnScript {
    shell: &Bash,
    script: BASH_SCRIPT,
};

/// zsh, with no space after a completed `KEY=`.
const ZSH_KEYS: OwnScript = OwnScript {
    shell: &Zsh,
    script: ZSH_SCRIPT,
};

/// The registration of `BASH_WHOLE`: clap_complete's protocol (the
/// variables its bash adapter reads), with the words bash split at `=`
/// (COMP_WORDBREAKS) joined, and the candidates given back to bash from
/// after the last `=` of the word, which is all bash replaces.
const BASH_SCRIPT: &str = r#"
_clap_complete_NAME() {
    local IFS=$'\013'
    local _CLAP_COMPLETE_COMP_TYPE=${COMP_TYPE}
    if compopt +o nospace 2> /dev/null; then
        local _CLAP_COMPLETE_SPACE=false
    else
        local _CLAP_COMPLETE_SPACE=true
    fi
    local words=() prefix="" glue=false i
    for (( i = 0; i < COMP_CWORD; i++ )); do
        if [[ ${COMP_WORDS[i]} == "=" && ${#words[@]} -gt 0 ]]; then
            words[-1]+="="
            glue=true
        elif $glue; then
            words[-1]+="${COMP_WORDS[i]}"
            glue=false
        else
            words+=("${COMP_WORDS[i]}")
        fi
    done
    if [[ ${COMP_WORDS[COMP_CWORD]} == "=" && -z "$2" && ${#words[@]} -gt 0 ]]; then
        words[-1]+="="
        prefix=${words[-1]}
    elif $glue; then
        prefix=${words[-1]}
        words[-1]+="$2"
    else
        words+=("$2")
    fi
    local reply
    reply=( $( \
        _CLAP_IFS="$IFS" \
        _CLAP_COMPLETE_INDEX=$(( ${#words[@]} - 1 )) \
        _CLAP_COMPLETE_COMP_TYPE="$_CLAP_COMPLETE_COMP_TYPE" \
        _CLAP_COMPLETE_SPACE="$_CLAP_COMPLETE_SPACE" \
        VAR="bash" \
        COMPLETER -- "${words[@]}" \
    ) ) || { unset COMPREPLY; return; }
    COMPREPLY=( "${reply[@]#"$prefix"}" )
    if [[ $_CLAP_COMPLETE_SPACE == false ]] && [[ "${COMPREPLY-}" =~ [=/:]$ ]]; then
        compopt -o nospace
    fi
}
complete -o nospace -o bashdefault -o nosort -F _clap_complete_NAME BIN
"#;

/// The registration of `ZSH_KEYS`: clap_complete's zsh script, with the
/// candidates that end in `=` (`--param`'s keys) offered with no suffix,
/// so the value follows the `=` at once.
const ZSH_SCRIPT: &str = r#"#compdef BIN
function _clap_dynamic_completer_NAME() {
    local _CLAP_COMPLETE_INDEX=$(expr $CURRENT - 1)
    local _CLAP_IFS=$'\n'

    local completions=("${(@f)$( \
        _CLAP_IFS="$_CLAP_IFS" \
        _CLAP_COMPLETE_INDEX="$_CLAP_COMPLETE_INDEX" \
        VAR="zsh" \
        COMPLETER -- "${words[@]}" 2>/dev/null \
    )}")

    if [[ -n $completions ]]; then
        local -a dirs=() keys=() other=()
        local completion
        for completion in $completions; do
            local value="${completion%%:*}"
            if [[ "$value" == */ ]]; then
                local dir_no_slash="${value%/}"
                if [[ "$completion" == *:* ]]; then
                    dirs+=("$dir_no_slash:${completion#*:}")
                else
                    dirs+=("$dir_no_slash")
                fi
            elif [[ "$value" == *= ]]; then
                keys+=("$completion")
            else
                other+=("$completion")
            fi
        done
        [[ -n $dirs ]] && _describe -V 'values' dirs -S '/' -r '/'
        [[ -n $keys ]] && _describe -V 'values' keys -S ''
        [[ -n $other ]] && _describe -V 'values' other
    fi
}

compdef _clap_dynamic_completer_NAME BIN
"#;

/// `text` as one shell word, in single quotes.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

impl EnvCompleter for OwnScript {
    fn name(&self) -> &'static str {
        self.shell.name()
    }

    fn is(&self, name: &str) -> bool {
        self.shell.is(name)
    }

    fn write_registration(
        &self,
        var: &str,
        name: &str,
        bin: &str,
        completer: &str,
        buf: &mut dyn Write,
    ) -> Result<(), std::io::Error> {
        let script = self
            .script
            .replace("NAME", &name.replace('-', "_"))
            .replace("BIN", bin)
            .replace("COMPLETER", &quoted(completer))
            .replace("VAR", var);
        buf.write_all(script.as_bytes())
    }

    fn write_complete(
        &self,
        cmd: &mut Command,
        args: Vec<OsString>,
        current_dir: Option<&Path>,
        buf: &mut dyn Write,
    ) -> Result<(), std::io::Error> {
        self.shell.write_complete(cmd, args, current_dir, buf)
    }
}

impl EnvCompleter for Visible {
    fn name(&self) -> &'static str {
        self.0.name()
    }

    fn is(&self, name: &str) -> bool {
        self.0.is(name)
    }

    fn write_registration(
        &self,
        var: &str,
        name: &str,
        bin: &str,
        completer: &str,
        buf: &mut dyn Write,
    ) -> Result<(), std::io::Error> {
        self.0.write_registration(var, name, bin, completer, buf)
    }

    fn write_complete(
        &self,
        cmd: &mut Command,
        args: Vec<OsString>,
        current_dir: Option<&Path>,
        buf: &mut dyn Write,
    ) -> Result<(), std::io::Error> {
        let mut answer = Vec::new();
        self.0.write_complete(cmd, args, current_dir, &mut answer)?;
        let hidden = hidden_options(cmd);
        // bash and zsh separate candidates as their script says, fish
        // (and the others) by lines.
        let separator = std::env::var("_CLAP_IFS").unwrap_or_else(|_| "\n".into());
        let answer = String::from_utf8_lossy(&answer);
        let kept: Vec<&str> = answer
            .split(separator.as_str())
            .filter(|candidate| !hidden.iter().any(|h| offers(candidate, h)))
            .collect();
        buf.write_all(kept.join(&separator).as_bytes())
    }
}

/// Every hidden option of `cmd` and its commands, as `--long`.
fn hidden_options(cmd: &Command) -> Vec<String> {
    let own = cmd
        .get_arguments()
        .filter(|a| a.is_hide_set())
        .filter_map(|a| a.get_long().map(|l| format!("--{l}")));
    let mut all: Vec<String> = own.collect();
    for sub in cmd.get_subcommands() {
        all.extend(hidden_options(sub));
    }
    all
}

/// Whether a candidate line offers `option`: the option itself, with a
/// value (`=`), or followed by its help (fish's tab, zsh's colon).
fn offers(candidate: &str, option: &str) -> bool {
    let candidate = candidate.trim_end_matches('\n');
    candidate
        .strip_prefix(option)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['=', '\t', ':']))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hidden_option_is_found_in_every_form_a_shell_prints_it() {
        assert!(offers("--fault", "--fault"));
        assert!(offers("--fault=corrupt", "--fault"));
        assert!(offers("--fault\tTest-only", "--fault"));
        assert!(offers("--fault:Test-only", "--fault"));
        assert!(!offers("--fail-on-unsupported", "--fault"));
        assert!(!offers("--faults", "--fault"));
        let mut cmd = super::super::complete::command();
        cmd.build();
        assert!(hidden_options(&cmd).contains(&"--fault".to_string()));
    }
}
