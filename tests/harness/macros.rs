//! The macros that run one test body per store. `per_store!` is the one shape: how each
//! case makes its argument from the backend, which backends (each a `#[tokio::test]` named
//! after it), then the cases. The others name its common uses.

#[macro_export]
macro_rules! per_store {
    ($make:expr; $backends:tt; $(async fn $name:ident($arg:ident : $ty:ty) $body:block)*) => {
        $( $crate::per_store!(@case $make; $backends; $name($arg: $ty) $body); )*
    };
    (@case $make:expr; [$($test:ident: $backend:ident),+]; $name:ident($arg:ident : $ty:ty) $body:block) => {
        async fn $name($arg: $ty) $body
        mod $name {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $test() {
                    super::$name(($make)($crate::Backend::$backend).await).await
                }
            )+
        }
    };
}

/// A test app on each store.
#[macro_export]
macro_rules! both_stores {
    ($(async fn $name:ident($app:ident : TestApp) $body:block)*) => {
        $crate::per_store!(|b| $crate::TestApp::spawn(b); [embedded: Embedded, dynamodb: DynamoDb];
            $(async fn $name($app: $crate::TestApp) $body)*);
    };
}

/// The same for store-contract cases, which take the store itself.
#[macro_export]
macro_rules! store_contract {
    ($(async fn $name:ident($s:ident : Store) $body:block)*) => {
        $crate::per_store!(|b| $crate::store(b); [embedded: Embedded, dynamodb: DynamoDb];
            $(async fn $name($s: std::sync::Arc<dyn web::store::Store>) $body)*);
    };
}

/// `both_stores!` with the app's settings given.
#[macro_export]
macro_rules! both_stores_with {
    ($settings:expr; $(async fn $name:ident($app:ident : TestApp) $body:block)*) => {
        $crate::per_store!(|b| $crate::TestApp::spawn_with(b, $settings); [embedded: Embedded, dynamodb: DynamoDb];
            $(async fn $name($app: $crate::TestApp) $body)*);
    };
}

/// Cases that build what they need from the backend themselves (their own settings,
/// servers or faults): each gets the `Backend`.
#[macro_export]
macro_rules! both_backends {
    ($($cases:tt)*) => {
        $crate::per_store!(|b| std::future::ready(b); [embedded: Embedded, dynamodb: DynamoDb]; $($cases)*);
    };
}

/// A case that does not depend on the store (the document, error shapes, body limits, the
/// Lambda event adapters, the MediaConvert job shapes): run once, on the embedded store.
#[macro_export]
macro_rules! one_store {
    ($(async fn $name:ident($app:ident : TestApp) $body:block)*) => {
        $crate::per_store!(|b| $crate::TestApp::spawn(b); [store_independent: Embedded];
            $(async fn $name($app: $crate::TestApp) $body)*);
    };
}
