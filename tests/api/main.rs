//! HTTP-level integration tests: one binary, one module per interface. Every case runs
//! twice: `::embedded` (redb in memory) and `::dynamodb` (the moto emulator).

mod admin_keys;
mod ads;
mod assets;
mod audience;
mod batches;
mod body_limits;
mod campaigns;
mod clients;
mod concurrency;
mod contacts;
mod echo_and_isolation;
mod errors;
mod events;
mod events_worker;
mod faults;
mod forecast_quota;
mod forecasts;
mod goals;
mod idempotency;
mod lambda_events;
mod media;
mod media_pipeline;
mod mediaconvert;
mod openapi;
mod player_browser;
mod policies;
mod queries;
mod reference;
mod rules;
mod serving;
mod store_contract;
mod templates;
mod tenant_sweep;
mod traffic_quality;
mod vast;
