//! The floor of a function that uses its store: the minimal baseline plus one call of each
//! SDK operation our adapters send (DynamoDB GetItem, PutItem, DeleteItem, UpdateItem,
//! Query, BatchGetItem, BatchWriteItem, TransactWriteItems; S3 GetObject and PutObject;
//! SQS SendMessage), and nothing else. `scripts/lambda-bench.sh` measures it beside the
//! functions, so the table shows how much of a function's size over the baseline is the
//! SDK's request path, which every real function pays (docs/architecture.md, "Function size").

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use lambda_http::{service_fn, Body, Error, Request, Response};

#[tokio::main]
async fn main() -> Result<(), Error> {
    let c = lambda_baseline::clients().await;
    lambda_http::run(service_fn(move |req: Request| {
        let (d, s, q) = (c.dynamo.clone(), c.s3.clone(), c.sqs.clone());
        // The calls are made only on `/calls` (never by the bench, which would wait on the
        // network); the compiler cannot know, so all of them are linked.
        let call = req.uri().path() == "/calls";
        async move {
            if !call {
                return Response::builder().status(200).body(Body::from("ok")).map_err(Error::from);
            }
            let key = || HashMap::from([("pk".to_string(), AttributeValue::S("k".into()))]);
            let answers = [
                d.get_item().table_name("t").set_key(Some(key())).send().await.is_ok(),
                d.put_item().table_name("t").set_item(Some(key())).send().await.is_ok(),
                d.delete_item().table_name("t").set_key(Some(key())).send().await.is_ok(),
                d.update_item().table_name("t").set_key(Some(key())).send().await.is_ok(),
                d.query().table_name("t").send().await.is_ok(),
                d.batch_get_item().send().await.is_ok(),
                d.batch_write_item().send().await.is_ok(),
                d.transact_write_items().send().await.is_ok(),
                s.get_object().bucket("b").key("k").send().await.is_ok(),
                s.put_object().bucket("b").key("k").send().await.is_ok(),
                q.send_message().queue_url("q").message_body("m").send().await.is_ok(),
            ];
            let ok = answers.iter().filter(|a| **a).count();
            Response::builder().status(200).body(Body::from(ok.to_string())).map_err(Error::from)
        }
    }))
    .await
}
