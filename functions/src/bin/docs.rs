//! Lambda for the API's own documentation: `GET /openapi.json`, `/docs` and `/docs/{file}`
//! (public, static; no store, no SDK client).

#[tokio::main]
async fn main() -> Result<(), web::lambda::LambdaError> {
    web::lambda::serve_docs().await
}
