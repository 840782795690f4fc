//! Pages of the list endpoints whose seeds show no pagination (docs/api.md, "Lists are
//! bounded"): `pageSize` (1-1000, default 1000) and `pageNumber` (from 1) in the query, the
//! total in `X-Total-Count`. A page of the largest records stays well under Lambda's 6 MB
//! response limit (1,000 × the longest XML bean, ~4 KB).

use axum::http::HeaderValue;
use axum::response::Response;

use crate::error::{AppError, FieldError};

/// The largest (and default) page.
pub const MAX_PAGE: usize = 1000;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Paging {
    pub size: usize,
    pub number: usize,
}

impl Paging {
    /// Reads `pageSize` and `pageNumber` from the query pairs.
    pub fn parse(pairs: &[(String, String)]) -> Result<Paging, AppError> {
        let mut errors = Vec::new();
        let mut num = |name: &str, lo: usize, hi: usize, default: usize| -> Result<usize, AppError> {
            match super::single(pairs, name)? {
                None => Ok(default),
                Some(v) => match v.trim().parse::<usize>() {
                    Ok(n) if (lo..=hi).contains(&n) => Ok(n),
                    _ => {
                        errors.push(FieldError::new(
                            name,
                            "range",
                            format!("query parameter {name} must be a whole number from {lo} to {hi} (got {v:?})"),
                        ));
                        Ok(default)
                    }
                },
            }
        };
        let size = num("pageSize", 1, MAX_PAGE, MAX_PAGE)?;
        let number = num("pageNumber", 1, 1_000_000, 1)?;
        if errors.is_empty() {
            Ok(Paging { size, number })
        } else {
            Err(AppError::Validation(errors))
        }
    }

    /// This page of `all` (already in order) and the total.
    pub fn apply<T>(&self, all: Vec<T>) -> (Vec<T>, usize) {
        let total = all.len();
        let page = all.into_iter().skip((self.number - 1).saturating_mul(self.size)).take(self.size).collect();
        (page, total)
    }

    /// `X-Total-Count`, `X-Page-Size`, `X-Page-Number` on the response.
    pub fn headers(&self, mut res: Response, total: usize) -> Response {
        let h = res.headers_mut();
        for (name, v) in [("x-total-count", total), ("x-page-size", self.size), ("x-page-number", self.number)] {
            h.insert(name, HeaderValue::from(v));
        }
        res
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(q: &str) -> Vec<(String, String)> {
        super::super::query_pairs(Some(q)).unwrap()
    }

    #[test]
    fn pages_and_their_bounds() {
        assert_eq!(Paging::parse(&[]).unwrap(), Paging { size: MAX_PAGE, number: 1 });
        let p = Paging::parse(&pairs("pageSize=2&pageNumber=2")).unwrap();
        assert_eq!(p.apply(vec![1, 2, 3, 4, 5]), (vec![3, 4], 5));
        assert_eq!(Paging { size: 2, number: 9 }.apply(vec![1, 2, 3]), (vec![], 3));
        for bad in ["pageSize=0", "pageSize=1001", "pageNumber=0", "pageSize=x"] {
            assert!(Paging::parse(&pairs(bad)).is_err(), "{bad}");
        }
    }
}
