//! What both yardsticks of `scripts/lambda-bench.sh` start with: the SDK config and the
//! DynamoDB, S3 and SQS clients, built once as a real function builds them.

pub struct Clients {
    pub dynamo: aws_sdk_dynamodb::Client,
    pub s3: aws_sdk_s3::Client,
    pub sqs: aws_sdk_sqs::Client,
}

pub async fn clients() -> Clients {
    let config = aws_config::load_from_env().await;
    Clients { dynamo: aws_sdk_dynamodb::Client::new(&config), s3: aws_sdk_s3::Client::new(&config), sqs: aws_sdk_sqs::Client::new(&config) }
}
