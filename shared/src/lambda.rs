//! The entry point every HTTP Lambda shares: config and SDK clients built once, outside the
//! handler, then the group's router handed to `lambda_http`.

use std::sync::Arc;

use crate::config::env;
use crate::state::AppState;
use crate::store::dynamodb::DynamoStore;

pub async fn serve(group: &str) -> Result<(), lambda_http::Error> {
    crate::telemetry::init();
    let table = env("TABLE_NAME").ok_or("TABLE_NAME is not set")?;
    let store = DynamoStore::from_env(table).await;
    let state = AppState::new(Arc::new(store));
    let app = crate::api::group_app(group, state).ok_or_else(|| format!("unknown resource group {group}"))?;
    lambda_http::run(app).await
}

pub type LambdaError = lambda_http::Error;
