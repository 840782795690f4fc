//! Logging: `tracing`, JSON on Lambda, compact text locally.

use tracing_subscriber::EnvFilter;

pub fn init() {
    let level = std::env::var("RUST_LOG")
        .or_else(|_| std::env::var("AWS_LAMBDA_LOG_LEVEL").map(|l| l.to_lowercase()))
        .unwrap_or_else(|_| "info".into());
    let filter = EnvFilter::try_new(&level).unwrap_or_else(|_| EnvFilter::new("info"));
    let on_lambda = std::env::var("AWS_LAMBDA_FUNCTION_NAME").is_ok();
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_target(false);
    let _ = if on_lambda || std::env::var("LOG_FORMAT").is_ok_and(|f| f == "json") {
        builder.json().flatten_event(true).without_time().try_init()
    } else {
        builder.compact().try_init()
    };
}
