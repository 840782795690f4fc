//! Pages of the list endpoints whose seeds show no pagination (docs/api.md, "Lists are
//! bounded"): `pageSize` (1-1000, default 1000) and `pageNumber` (from 1) in the query, the
//! total in `X-Total-Count`. A page of the largest records stays well under Lambda's 6 MB
//! response limit (1,000 × the longest XML bean, ~4 KB).

use crate::rule::Rule;
use axum::http::HeaderValue;
use axum::response::Response;

use crate::api::error::{AppError, FieldError};

/// The largest (and default) page of the unpaginated lists.
pub const MAX_PAGE: usize = 1000;
/// The highest page number a request may ask for.
pub const MAX_PAGE_NUMBER: usize = 1_000_000;

/// The page sizes a list takes: at most `max`, `default` when not asked.
#[derive(Debug, Clone, Copy)]
pub struct PageBounds {
    pub max: usize,
    pub default: usize,
}

/// The seeds' own paginated lists (`/v3`, providers, insertion policies): 1-100, default 10.
pub const SEED_PAGES: PageBounds = PageBounds { max: 100, default: 10 };
/// The lists the seeds show without pagination: 1-1000, default 1000 (all of a bounded list).
pub const LIST_PAGES: PageBounds = PageBounds { max: MAX_PAGE, default: MAX_PAGE };

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Paging {
    pub size: usize,
    pub number: usize,
}

impl Paging {
    /// Reads `pageSize` and `pageNumber` of a list without seed pagination ([`LIST_PAGES`]).
    pub fn parse(pairs: &[(String, String)]) -> Result<Paging, AppError> {
        Paging::parse_in(pairs, LIST_PAGES)
    }

    /// Reads `pageSize` (1 to `b.max`, default `b.default`) and `pageNumber` (1 to
    /// [`MAX_PAGE_NUMBER`], default 1): the one paging rule of every list.
    pub fn parse_in(pairs: &[(String, String)], b: PageBounds) -> Result<Paging, AppError> {
        let mut errors = Vec::new();
        let mut num = |name: &str, lo: usize, hi: usize, default: usize| -> Result<usize, AppError> {
            match super::single(pairs, name)? {
                None => Ok(default),
                Some(v) => match v.trim().parse::<usize>() {
                    Ok(n) if (lo..=hi).contains(&n) => Ok(n),
                    _ => {
                        errors.push(FieldError::new(
                            name,
                            Rule::Range,
                            format!("query parameter {name} must be a whole number from {lo} to {hi} (got {v:?})"),
                        ));
                        Ok(default)
                    }
                },
            }
        };
        let size = num("pageSize", 1, b.max, b.default)?;
        let number = num("pageNumber", 1, MAX_PAGE_NUMBER, 1)?;
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
