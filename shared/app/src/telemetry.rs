//! Logging: `tracing`, JSON on Lambda (or with `LOG_FORMAT=json`), compact text locally.
//!
//! The level comes from `RUST_LOG`, else `AWS_LAMBDA_LOG_LEVEL`, else `info`. The filter is
//! `tracing_subscriber`'s `Targets` (`info`, `warn,shared=debug`, ...): target and level
//! directives, no span or field filters, and no regex engine in every Lambda.

use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::prelude::*;

/// The filter of a `RUST_LOG`-style string; `info` when it does not parse.
pub fn filter(spec: &str) -> Targets {
    spec.parse().unwrap_or_else(|_| Targets::new().with_default(LevelFilter::INFO))
}

/// Lambda's log levels (`AWS_LAMBDA_LOG_LEVEL`) as tracing levels: FATAL is error.
pub fn lambda_level(level: &str) -> &'static str {
    match level.to_ascii_uppercase().as_str() {
        "TRACE" => "trace",
        "DEBUG" => "debug",
        "WARN" => "warn",
        "ERROR" | "FATAL" => "error",
        _ => "info",
    }
}

pub fn init() {
    let spec = std::env::var("RUST_LOG")
        .or_else(|_| std::env::var("AWS_LAMBDA_LOG_LEVEL").map(|l| lambda_level(&l).to_string()))
        .unwrap_or_else(|_| "info".into());
    let registry = tracing_subscriber::registry().with(filter(&spec));
    let on_lambda = std::env::var("AWS_LAMBDA_FUNCTION_NAME").is_ok();
    let _ = if on_lambda || std::env::var("LOG_FORMAT").is_ok_and(|f| f == "json") {
        registry.with(tracing_subscriber::fmt::layer().json().flatten_event(true).without_time().with_target(false)).try_init()
    } else {
        registry.with(tracing_subscriber::fmt::layer().compact().with_target(false)).try_init()
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracing::Level;

    #[test]
    fn levels_and_targets() {
        let f = filter("warn,shared=debug");
        assert!(f.would_enable("shared::api", &Level::DEBUG));
        assert!(!f.would_enable("aws_smithy_runtime", &Level::INFO));
        assert!(f.would_enable("aws_smithy_runtime", &Level::WARN));
        let f = filter("info");
        assert!(f.would_enable("shared", &Level::INFO) && !f.would_enable("shared", &Level::DEBUG));
        // AWS_LAMBDA_LOG_LEVEL=FATAL is no tracing level: error.
        assert_eq!(lambda_level("FATAL"), "error");
        assert_eq!(lambda_level("WARN"), "warn");
        assert_eq!(lambda_level("bogus"), "info");
    }
}
