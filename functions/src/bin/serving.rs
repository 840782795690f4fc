//! Lambda for ad requests (`/v1/adrequest`): the delivery engine over the account's cached
//! snapshot, answered as VAST or VMAP.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> Result<(), web::lambda::LambdaError> {
    web::lambda::serve::<web::lambda::SignsLinks>(web::api::groups::serving).await
}
