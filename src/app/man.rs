//! `iolab man`: a man page for iolab and one per command, by clap_mangen
//! (title, name, synopsis, description, options, commands) and the
//! manual's sections (`cli/manual.rs`) written with roff: EXIT STATUS,
//! ENVIRONMENT, FILES, NOTES, EXAMPLES and SEE ALSO. Every page's footer
//! names iolab and its version.

use crate::cli::manual::{self, Page};
use crate::cli::ManArgs;
use crate::model::IOLAB_VERSION;
use anyhow::Context;
use clap::Command;
use roff::{bold, roman, Roff};
use std::process::ExitCode;

/// `iolab man`: iolab's page on stdout, or with `--dir` one page per
/// command (`iolab.1`, `iolab-run.1`, ...) written there.
pub(super) fn man(args: &ManArgs) -> anyhow::Result<ExitCode> {
    let mut cmd = super::command();
    cmd.build();
    let Some(dir) = &args.dir else {
        super::out(&String::from_utf8(page(&cmd, "")?)?)?;
        return Ok(ExitCode::SUCCESS);
    };
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let commands = cmd
        .get_subcommands()
        .filter(|c| !c.is_hide_set() && c.get_name() != "help");
    let pages = std::iter::once((&cmd, "")).chain(commands.map(|c| (c, c.get_name())));
    for (command, name) in pages {
        let file = dir.join(format!("{}.1", title(command)));
        std::fs::write(&file, page(command, name)?)
            .with_context(|| format!("cannot write the man page {}", file.display()))?;
    }
    super::out(&format!(
        "wrote the man pages of iolab and its commands into {}\n",
        dir.display()
    ))?;
    Ok(ExitCode::SUCCESS)
}

/// `iolab`, or `iolab-run` for a command.
fn title(cmd: &Command) -> String {
    cmd.get_display_name().unwrap_or(cmd.get_name()).to_string()
}

/// The roff of one page: clap_mangen's sections, then the manual's.
fn page(cmd: &Command, name: &str) -> anyhow::Result<Vec<u8>> {
    let entry = manual::page(name).with_context(|| format!("no manual page for '{name}'"))?;
    let man = clap_mangen::Man::new(cmd.clone())
        .title(title(cmd))
        .source(format!("iolab {IOLAB_VERSION}"))
        .manual("iolab manual");
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    if cmd
        .get_arguments()
        .any(|a| !a.is_hide_set() && !a.is_positional())
    {
        man.render_options_section(&mut out)?;
    }
    if cmd.has_subcommands() {
        man.render_subcommands_section(&mut out)?;
    }
    sections(entry).to_writer(&mut out)?;
    Ok(out)
}

/// The manual's sections, in man-pages(7)'s order.
fn sections(page: &Page) -> Roff {
    let mut roff = Roff::new();
    roff.control("SH", ["EXIT STATUS"]);
    for (code, what) in page.exit {
        tagged(&mut roff, code, what);
    }
    let described = |table: &'static [(&str, &str)], names: &[&str]| {
        let of = move |name: &&str| table.iter().find(|(n, _)| n == name).copied();
        names.iter().filter_map(of).collect::<Vec<_>>()
    };
    let environment = described(manual::ENVIRONMENT, page.environment);
    if !environment.is_empty() {
        roff.control("SH", ["ENVIRONMENT"]);
        environment
            .iter()
            .for_each(|(n, what)| tagged(&mut roff, n, what));
    }
    let files = described(manual::FILES, page.files);
    if !files.is_empty() {
        roff.control("SH", ["FILES"]);
        files
            .iter()
            .for_each(|(n, what)| tagged(&mut roff, n, what));
    }
    if !page.notes.is_empty() {
        roff.control("SH", ["NOTES"]);
        for paragraph in page.notes.split("\n\n") {
            roff.control("PP", []).text([roman(paragraph)]);
        }
    }
    roff.control("SH", ["EXAMPLES"]);
    for (cmd, what) in page.examples {
        tagged(&mut roff, cmd, what);
    }
    roff.control("SH", ["SEE ALSO"]);
    let mut refs = Vec::new();
    for (i, reference) in page.see_also.iter().enumerate() {
        let (name, section) = reference.split_once('(').unwrap_or((reference, ""));
        refs.push(bold(name));
        let comma = if i + 1 < page.see_also.len() {
            ", "
        } else {
            ""
        };
        refs.push(roman(format!("({section}{comma}")));
    }
    roff.text(refs);
    roff
}

/// A `.TP` paragraph: `tag` in bold, `what` below it.
fn tagged(roff: &mut Roff, tag: &str, what: &str) {
    roff.control("TP", []).text([bold(tag)]).text([roman(what)]);
}
