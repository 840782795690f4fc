//! The macros that run one test body on both stores.

#[macro_export]
macro_rules! both_stores {
    ($(async fn $name:ident($app:ident : TestApp) $body:block)*) => {
        $(
            async fn $name($app: $crate::TestApp) $body
            mod $name {
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn embedded() {
                    super::$name($crate::TestApp::spawn($crate::Backend::Embedded).await).await
                }
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn dynamodb() {
                    super::$name($crate::TestApp::spawn($crate::Backend::DynamoDb).await).await
                }
            }
        )*
    };
}

/// The same for store-contract cases, which take the store itself.
#[macro_export]
macro_rules! store_contract {
    ($(async fn $name:ident($s:ident : Store) $body:block)*) => {
        $(
            async fn $name($s: std::sync::Arc<dyn shared::store::Store>) $body
            mod $name {
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn embedded() {
                    super::$name($crate::store($crate::Backend::Embedded).await).await
                }
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn dynamodb() {
                    super::$name($crate::store($crate::Backend::DynamoDb).await).await
                }
            }
        )*
    };
}

/// `both_stores!` with the app's settings given.
#[macro_export]
macro_rules! both_stores_with {
    ($settings:expr; $(async fn $name:ident($app:ident : TestApp) $body:block)*) => {
        $(
            async fn $name($app: $crate::TestApp) $body
            mod $name {
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn embedded() {
                    super::$name($crate::TestApp::spawn_with($crate::Backend::Embedded, $settings).await).await
                }
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn dynamodb() {
                    super::$name($crate::TestApp::spawn_with($crate::Backend::DynamoDb, $settings).await).await
                }
            }
        )*
    };
}

/// A case that does not depend on the store (the document, error shapes, body limits, the
/// Lambda event adapters, the MediaConvert job shapes): run once, on the embedded store.
#[macro_export]
macro_rules! one_store {
    ($(async fn $name:ident($app:ident : TestApp) $body:block)*) => {
        $(
            async fn $name($app: $crate::TestApp) $body
            mod $name {
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn store_independent() {
                    super::$name($crate::TestApp::spawn($crate::Backend::Embedded).await).await
                }
            }
        )*
    };
}
