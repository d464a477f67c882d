//! How the claims write their numbers: a figure with three significant
//! digits or so, and an interval as "±6%". Every rule and every verdict
//! text shares these, so the same figure reads the same everywhere.

/// A number with three significant digits or so.
pub(crate) fn num(x: f64) -> String {
    let a = x.abs();
    if x.fract() == 0.0 && a < 1e15 {
        return format!("{x:.0}");
    }
    if a < 1.0 {
        // Three significant digits: a threshold of 1 in 10,000 is 0.000100.
        let decimals = (2 - a.log10().floor() as i32).clamp(3, 12) as usize;
        return format!("{x:.decimals$}");
    }
    if a >= 100.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

/// "±6%" (or "±0.4%").
pub(crate) fn plus_minus(relative: f64) -> String {
    let pct = relative * 100.0;
    match pct {
        p if p >= 10.0 => format!("±{p:.0}%"),
        p if p >= 1.0 => format!("±{p:.1}%"),
        p => format!("±{p:.2}%"),
    }
}
