//! A goal's pacing by day: its chart (`/v3/goals/{id}/pacing.svg`) and, as its text, the
//! table of its days (plan, delivered, projected with the band) and the projection in
//! words. Served by the queries function, which reads the snapshot, the report cells and
//! the traffic model the projection replays.

use super::error::{ConsoleError, ConsoleResult};
use axum::extract::Path;
use axum::response::IntoResponse;
use maud::{html, Markup};

use super::form::{self, number};
use super::{page, ConsoleUser};
use crate::api::Within;
use crate::forecast::projection::Projection;
use crate::usecases::pacing::goal_pacing;

fn cell(v: Option<f64>) -> Markup {
    html! { td.num { (v.map(|v| number(v.round())).unwrap_or_default()) } }
}

/// The projection in one sentence (a person's words).
pub fn projection_words(p: &Projection) -> String {
    let end = match (p.shortfall, p.overage) {
        (Some(s), _) => format!(", short of the target by {}", number(s.round())),
        (_, Some(o)) => format!(", over the target by {}", number(o.round())),
        _ => String::new(),
    };
    format!(
        "Expected by the end: {} (between {} and {}){end}; delivered so far {}.",
        number(p.expected.round()),
        number(p.low.round()),
        number(p.high.round()),
        number(p.delivered.round())
    )
}

pub async fn show(Within(st): Within, user: ConsoleUser, Path(id): Path<String>) -> ConsoleResult {
    let a = &user.account;
    let (g, c, _, p) = match goal_pacing(&st, a, &id).await {
        Ok(Some(found)) => found,
        Ok(None) => return Err(ConsoleError::Service(crate::api::error::AppError::not_found("goal", &id))),
        Err(e) => return Err(e.into()),
    };
    let name = g.name.clone().unwrap_or_else(|| format!("Goal {}", g.id));
    let title = format!("Pacing of {name}");
    let body = html! {
        p.crumbs { a href={ "/console/campaigns/" (c.id) } { (c.name) } " › " a href={ "/console/goals/" (g.id) } { (name) } }
        h1 { (title) }
        @match &p.projection {
            Some(pr) => p role="status" { (projection_words(pr)) },
            None => p { "The goal has no end date, so there is no projection; its delivery by day is below." },
        }
        figure {
            img.chart src={ "/v3/goals/" (g.id) "/pacing.svg" } alt={ (title) ": the table below has its numbers." } width="760" height="340";
            figcaption { "Plan (dashed), delivered (solid), projected (dotted) with its band. Days of " (form::zone_name(a)) "." }
        }
        table #pacing {
            caption { (title) ", cumulative by each day's end" }
            thead { tr {
                th scope="col" { "Day" } th.num scope="col" { "Plan" } th.num scope="col" { "Delivered" }
                th.num scope="col" { "Projected" } th.num scope="col" { "Low" } th.num scope="col" { "High" }
            } }
            tbody {
                @for d in &p.days {
                    tr { td { (d.date) } (cell(d.plan)) (cell(d.delivered)) (cell(d.expected)) (cell(d.low)) (cell(d.high)) }
                }
            }
        }
    };
    Ok(page::page(&title, Some(&user), body).into_response())
}
