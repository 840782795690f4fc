//! SQS adapter (aws-sdk-sqs), plus a poller for running workers outside Lambda (the local
//! server over AWS services, and the emulator-backed tests).

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use aws_sdk_sqs::Client;

use super::{Queue, QueueError, QueueName};

pub struct SqsQueue {
    client: Client,
    urls: HashMap<QueueName, String>,
}

fn err<E: std::error::Error + Send + Sync + 'static>(e: E) -> QueueError {
    QueueError::new("sqs", e)
}

impl SqsQueue {
    /// The queues at these URLs; a function without a queue's URL cannot send to it (an
    /// error when it tries).
    pub fn new(conf: &aws_config::SdkConfig, urls: HashMap<QueueName, String>) -> SqsQueue {
        SqsQueue { client: Client::new(conf), urls }
    }

    /// Creates `<prefix>-<queue>` queues when missing (emulators, tests).
    pub async fn create(prefix: &str) -> Result<SqsQueue, QueueError> {
        Self::create_with(&aws_config::load_from_env().await, prefix).await
    }

    pub async fn create_with(conf: &aws_config::SdkConfig, prefix: &str) -> Result<SqsQueue, QueueError> {
        let client = Client::new(conf);
        let mut urls = HashMap::new();
        for q in QueueName::ALL {
            let out = client.create_queue().queue_name(format!("{prefix}-{}", q.short())).send().await.map_err(err)?;
            urls.insert(*q, out.queue_url().unwrap_or_default().to_string());
        }
        Ok(SqsQueue { client, urls })
    }

    /// The queue's ARN (for the bucket notification).
    pub async fn arn(&self, q: QueueName) -> Result<String, QueueError> {
        use aws_sdk_sqs::types::QueueAttributeName;
        let url = self.url(q).ok_or_else(|| QueueError::msg(format!("no URL for queue {q:?}")))?;
        let out =
            self.client.get_queue_attributes().queue_url(url).attribute_names(QueueAttributeName::QueueArn).send().await.map_err(err)?;
        out.attributes()
            .and_then(|a| a.get(&QueueAttributeName::QueueArn))
            .cloned()
            .ok_or_else(|| QueueError::msg(format!("queue {url} has no ARN")))
    }

    pub fn url(&self, q: QueueName) -> Option<&str> {
        self.urls.get(&q).map(String::as_str)
    }

    /// Receives and handles messages until the process ends, as the Lambda event source
    /// would: a message is deleted only when its handler succeeded, else it comes back
    /// after the visibility timeout.
    pub fn spawn_poller<F, Fut>(self: &Arc<Self>, q: QueueName, handler: F)
    where
        F: Fn(String) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = bool> + Send,
    {
        let me = Arc::clone(self);
        tokio::spawn(async move {
            let Some(url) = me.url(q).map(str::to_string) else { return };
            loop {
                let got = me
                    .client
                    .receive_message()
                    .queue_url(&url)
                    .max_number_of_messages(10)
                    .wait_time_seconds(1)
                    .visibility_timeout(30)
                    .message_system_attribute_names(aws_sdk_sqs::types::MessageSystemAttributeName::ApproximateReceiveCount)
                    .send()
                    .await;
                let msgs = match got {
                    Ok(out) => out.messages.unwrap_or_default(),
                    Err(e) => {
                        tracing::warn!(error = ?e, queue = q.short(), "receive failed");
                        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
                        continue;
                    }
                };
                for m in msgs {
                    let ok = handler(m.body().unwrap_or_default().to_string()).await;
                    let Some(h) = m.receipt_handle() else { continue };
                    if ok {
                        let _ = me.client.delete_message().queue_url(&url).receipt_handle(h).send().await;
                    } else {
                        let n = m
                            .attributes()
                            .and_then(|a| a.get(&aws_sdk_sqs::types::MessageSystemAttributeName::ApproximateReceiveCount))
                            .and_then(|c| c.parse().ok())
                            .unwrap_or(1);
                        let _ = me.retry_later(q, h, crate::queue::redelivery_delay(n)).await;
                    }
                }
            }
        });
    }
}

#[async_trait]
impl Queue for SqsQueue {
    async fn send(&self, queue: QueueName, body: String) -> Result<(), QueueError> {
        let url = self.urls.get(&queue).ok_or_else(|| QueueError::msg(format!("no URL for queue {queue:?}")))?;
        self.client.send_message().queue_url(url).message_body(body).send().await.map_err(err)?;
        Ok(())
    }

    /// SendMessageBatch, ten messages a call (SQS's most); a message SQS refused fails the send.
    async fn send_batch(&self, queue: QueueName, bodies: Vec<String>) -> Result<(), QueueError> {
        use aws_sdk_sqs::types::SendMessageBatchRequestEntry as Entry;
        let url = self.urls.get(&queue).ok_or_else(|| QueueError::msg(format!("no URL for queue {queue:?}")))?;
        for chunk in bodies.chunks(10) {
            let entries = chunk
                .iter()
                .enumerate()
                .map(|(i, body)| Entry::builder().id(i.to_string()).message_body(body).build().map_err(err))
                .collect::<Result<Vec<_>, _>>()?;
            let out = self.client.send_message_batch().queue_url(url).set_entries(Some(entries)).send().await.map_err(err)?;
            if let Some(f) = out.failed().first() {
                return Err(QueueError::msg(format!("SQS refused a message of a batch: {} {}", f.code(), f.message().unwrap_or(""))));
            }
        }
        Ok(())
    }

    async fn retry_later(&self, queue: QueueName, receipt: &str, delay: std::time::Duration) -> Result<(), QueueError> {
        let url = self.urls.get(&queue).ok_or_else(|| QueueError::msg(format!("no URL for queue {queue:?}")))?;
        let secs = i32::try_from(delay.as_secs()).unwrap_or(900);
        self.client
            .change_message_visibility()
            .queue_url(url)
            .receipt_handle(receipt)
            .visibility_timeout(secs)
            .send()
            .await
            .map_err(err)?;
        Ok(())
    }

    async fn depth(&self) -> Result<u64, QueueError> {
        use aws_sdk_sqs::types::QueueAttributeName as A;
        let mut n = 0u64;
        for url in self.urls.values() {
            let out = self
                .client
                .get_queue_attributes()
                .queue_url(url)
                .attribute_names(A::ApproximateNumberOfMessages)
                .attribute_names(A::ApproximateNumberOfMessagesNotVisible)
                .attribute_names(A::ApproximateNumberOfMessagesDelayed)
                .send()
                .await
                .map_err(err)?;
            n += out.attributes().into_iter().flat_map(|a| a.values()).filter_map(|v| v.parse::<u64>().ok()).sum::<u64>();
        }
        Ok(n)
    }

    fn kind(&self) -> &'static str {
        "sqs"
    }
}
