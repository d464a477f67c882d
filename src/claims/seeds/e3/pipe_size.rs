//! E3-pipe-16-pages: a pipe holds 16 pages. Decided on what a non-blocking
//! fill took before EAGAIN and what F_GETPIPE_SZ reports, in pages of this
//! system's size; the range F_SETPIPE_SZ allows is cited beside them.

use crate::claims::engine::observed::{said, Observations};
use crate::claims::engine::outcome::{Found, Outcome};

const PAGES: f64 = 16.0;

pub(crate) fn pipe_16_pages(o: &Observations) -> Found<Outcome> {
    let page = o.figure("page_size")?;
    let (fill, size) = (o.named("fill_until_eagain")?, o.named("getpipe_sz")?);
    let (filled, reported) = (o.figure("fill_until_eagain")?, o.figure("getpipe_sz")?);
    let evidence = format!("{}; {}", said(fill), said(size));
    if filled != reported || page <= 0.0 {
        return Ok(Outcome::undecided(format!(
            "{evidence}: the fill and F_GETPIPE_SZ disagree, so the pipe's size is unclear"
        )));
    }
    let pages = reported / page;
    let range = match (o.figure("setpipe_sz_min"), o.figure("setpipe_sz_max")) {
        (Ok(lo), Ok(hi)) => format!("; F_SETPIPE_SZ allows {lo:.0}-{hi:.0} bytes"),
        _ => String::new(),
    };
    let figure = format!("{evidence}: {pages} pages of {page:.0} bytes{range}");
    Ok(Outcome::agrees(pages == PAGES, figure))
}
