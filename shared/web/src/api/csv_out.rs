//! The CSV answers (change history, delivery reports): RFC 4180 as the csv crate writes it,
//! with CRLF lines, and every cell neutralised against formula injection (OWASP): a cell
//! that begins with `=`, `+`, `-`, `@`, a tab or a carriage return, after any leading
//! spaces, or with their full-width forms (`＝ ＋ － ＠`, which spreadsheets read as the
//! same), is written with a leading `'`, so a spreadsheet shows it as text and never
//! evaluates it. Numbers (`-3.5`)
//! and the lone `-` of a report's "none" are left as they are: no spreadsheet reads either
//! as a formula.

use std::borrow::Cow;

use crate::api::error::AppError;

/// A cell as it is written.
pub fn cell(s: &str) -> Cow<'_, str> {
    const TRIGGERS: [char; 10] = ['=', '+', '-', '@', '\t', '\r', '＝', '＋', '－', '＠'];
    let trigger = s.trim_start_matches([' ', '\u{3000}']).starts_with(TRIGGERS);
    if !trigger || s == "-" || s.parse::<f64>().is_ok_and(f64::is_finite) {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(format!("'{s}"))
    }
}

/// A CSV document, a row at a time.
pub struct CsvOut(csv::Writer<Vec<u8>>);

impl CsvOut {
    pub fn new() -> Self {
        CsvOut(csv::WriterBuilder::new().terminator(csv::Terminator::CRLF).from_writer(Vec::new()))
    }

    /// Writes one row, each cell neutralised.
    pub fn row<I, S>(&mut self, cells: I) -> Result<(), AppError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let cells: Vec<String> = cells.into_iter().map(|c| cell(c.as_ref()).into_owned()).collect();
        self.0.write_record(&cells).map_err(|e| AppError::internal_msg(format!("writing CSV: {e}")))
    }

    pub fn finish(self) -> Result<String, AppError> {
        let bytes = self.0.into_inner().map_err(|e| AppError::internal_msg(format!("writing CSV: {}", e.error())))?;
        String::from_utf8(bytes).map_err(AppError::internal)
    }
}

impl Default for CsvOut {
    fn default() -> Self {
        CsvOut::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_are_neutralised_and_numbers_kept() {
        for (raw, out) in [
            ("=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"),
            ("+1+2", "'+1+2"),
            ("-2+3", "'-2+3"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\tx", "'\tx"),
            ("\rx", "'\rx"),
            ("-3.5", "-3.5"),
            ("-", "-"),
            ("Spring", "Spring"),
            ("a=b", "a=b"),
            (" =1+1", "' =1+1"),
            ("   @SUM(A1)", "'   @SUM(A1)"),
            ("＝1+1", "'＝1+1"),
            ("＋1", "'＋1"),
            ("－1", "'－1"),
            ("＠SUM(A1)", "'＠SUM(A1)"),
            ("\u{3000}=1", "'\u{3000}=1"),
        ] {
            assert_eq!(cell(raw), out, "{raw:?}");
        }
        let mut w = CsvOut::new();
        w.row(["name", "value"]).unwrap();
        w.row(["=1+1", "x,y"]).unwrap();
        assert_eq!(w.finish().unwrap(), "name,value\r\n'=1+1,\"x,y\"\r\n");
    }
}
