//! The compile worker: one account a message (`usecases::compile`). A message that cannot
//! be read is dropped; a store or bucket failure gives it back to the queue. Idempotent:
//! a version already compiled is not compiled again.

use super::{JobError, JobResult};
use crate::state::AppState;
use crate::usecases::compile::{self, CompileJob};

pub fn parse(body: &str) -> JobResult<CompileJob> {
    serde_json::from_str(body).map_err(|e| JobError::Drop(format!("not a compile message: {e}")))
}

pub async fn process(st: &AppState, job: &CompileJob) -> JobResult<()> {
    compile::run(st, &job.account.as_str().into()).await.map(|_| ()).map_err(JobError::from)
}

/// The account whose delivery version a stream record changed (`A#<a>#DELIVERY / VERSION`;
/// `None`: another record, which the event source's filter should have kept away).
pub fn account_of(r: &aws_lambda_events::dynamodb::EventRecord) -> Option<String> {
    let text = |name: &str| match r.change.keys.get(name) {
        Some(serde_dynamo::AttributeValue::S(s)) => Some(s.as_str()),
        _ => None,
    };
    (text("sk")? == crate::keys::DELIVERY_VERSION_SK).then_some(())?;
    crate::keys::account_of_delivery(text("pk")?).map(str::to_string)
}

/// One batch of the table's stream: each account it names compiled once; the records of
/// an account that failed are reported (`ReportBatchItemFailures`, by sequence number) and
/// come back.
pub async fn handle_stream(st: &AppState, event: &aws_lambda_events::dynamodb::Event) -> aws_lambda_events::streams::DynamoDbEventResponse {
    let mut accounts: Vec<(String, Option<String>)> = Vec::new();
    for r in &event.records {
        let Some(account) = account_of(r) else { continue };
        if !accounts.iter().any(|(a, _)| *a == account) {
            accounts.push((account, r.change.sequence_number.clone()));
        }
    }
    let mut out = aws_lambda_events::streams::DynamoDbEventResponse::default();
    for (account, first) in accounts {
        if let Err(e) = compile::run(st, &account.as_str().into()).await {
            tracing::warn!(account, error = %e, "compile failed; the stream records come back");
            let mut failure = aws_lambda_events::streams::DynamoDbBatchItemFailure::default();
            failure.item_identifier = first;
            out.batch_item_failures.push(failure);
        }
    }
    out
}
